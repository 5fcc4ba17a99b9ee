/**
 * Declared rules per run. A scenario lists the rules it exercises unconditionally, and
 * the ones that need a card, a second key, a live key, a presentation or a webhook
 * receiver. `rules` (static) is computed for the default environment: every sandbox card,
 * two merchants with two test keys each and live keys, a webhook receiver that fails a
 * share of deliveries, presentation not yet known (presentation-only rules left out).
 */
import type { ScenarioEnv } from '../../src/spec/scenario.ts';
import { CARD_OUTCOMES, type CardOutcome } from '../../src/spec/cards.ts';
import { isRuleId } from '../../src/spec/rules.ts';
import { keyFacts } from './keys.ts';

export interface Conditional {
  rules: string[];
  cards?: CardOutcome[];
  /** Any card of the cards file (a scenario that sends nothing without one). */
  anyCard?: boolean;
  presentation?: 'A' | 'B';
  twoTestKeys?: boolean;
  /** Any second key besides the rate-limit key (test or live). */
  secondKey?: boolean;
  twoMerchants?: boolean;
  live?: boolean;
  webhooks?: boolean;
  webhookFailures?: boolean;
  /** Fault proxies the rules need (e.g. `client` for a client-link fault); the rules are declared only when every one can be faulted. */
  proxies?: string[];
}

export const DEFAULT_ENV: ScenarioEnv = {
  presentation: null,
  embedded: true,
  keys: [
    { label: 'm1/test/…0001', merchant: 'm1', mode: 'test', prefix: 'svc_test_sk_', last4: '0001' },
    { label: 'm1/test/…0002', merchant: 'm1', mode: 'test', prefix: 'svc_test_sk_', last4: '0002' },
    { label: 'm1/live/…0003', merchant: 'm1', mode: 'live', prefix: 'svc_live_sk_', last4: '0003' },
    { label: 'm2/test/…0004', merchant: 'm2', mode: 'test', prefix: 'svc_test_sk_', last4: '0004' },
    { label: 'm2/test/…0005', merchant: 'm2', mode: 'test', prefix: 'svc_test_sk_', last4: '0005' },
  ],
  cardOutcomes: [...CARD_OUTCOMES],
  webhooks: { wired: true, failShare: 0.2 },
};

function applies(c: Conditional, env: ScenarioEnv): boolean {
  if (c.cards && !c.cards.every((o) => env.cardOutcomes.includes(o))) return false;
  if (c.anyCard && env.cardOutcomes.length === 0) return false;
  if (c.presentation && env.presentation !== c.presentation) return false;
  const kf = keyFacts(env.keys);
  if (c.twoTestKeys && !kf.twoTestKeys) return false;
  if (c.secondKey && env.keys.length < 2) return false;
  if (c.twoMerchants && kf.merchants < 2) return false;
  if (c.live && !kf.live) return false;
  if (c.webhooks && !(env.webhooks && env.webhooks.wired)) return false;
  if (c.webhookFailures && !(env.webhooks && env.webhooks.wired && env.webhooks.failShare > 0)) return false;
  if (c.proxies && env.faultProxies && !c.proxies.every((p) => env.faultProxies!.includes(p))) return false;
  return true;
}

/** Builds `rules` (for DEFAULT_ENV) and `rulesFor(env)` from an unconditional list and conditional ones. */
export function declareRules(always: string[], conditional: Conditional[] = []): { rules: string[]; rulesFor: (env: ScenarioEnv) => string[] } {
  for (const id of [...always, ...conditional.flatMap((c) => c.rules)]) {
    if (!isRuleId(id)) throw new Error(`scenario declares unknown rule id ${id}`);
  }
  const rulesFor = (env: ScenarioEnv): string[] => {
    const out = new Set(always);
    for (const c of conditional) if (applies(c, env)) for (const r of c.rules) out.add(r);
    return [...out];
  };
  return { rules: rulesFor(DEFAULT_ENV), rulesFor };
}
