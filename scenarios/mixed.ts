/**
 * mixed: the everyday workload under the limit. Weighted Direct API and hosted creates,
 * poll-until-settled (every 1 to 2 s, scaled), partial and full refunds on both refund
 * paths, retrievals and lists, spread over the load keys at 70% of each key's limit.
 */
import type { Scenario } from '../src/spec/scenario.ts';
import { rateLimitOf } from './lib/pace.ts';
import { declareRules } from './lib/rules.ts';
import { MIN_ITERATIONS_FOR_COVERAGE, mixedRate, runMixed } from './lib/mixed-load.ts';
import { loadKeys } from './lib/keys.ts';
import { api, unknownPaymentId } from './lib/common.ts';
import { DEFAULT_SHARE } from './lib/pace.ts';

const { rules, rulesFor } = declareRules(
  ['PAY-1', 'PAY-8', 'PAY-11', 'PAY-12', 'SM-2', 'LIST-1', 'LIST-2', 'RL-4', 'RL-5', 'RL-6', 'ERR-5', 'AUTH-5', 'SEC-2'],
  [
    // Without the succeeding card mixed makes hosted payments only, which wait on their page: no Direct API create status, no transition.
    { rules: ['PAY-6', 'SM-1', 'PAY-9', 'PAY-15', 'SM-6', 'REF-1', 'REF-2'], cards: ['succeeds'] },
    { rules: ['REF-6', 'PAY-13', 'PAY-14'], presentation: 'B', cards: ['succeeds'] },
    { rules: ['PAY-10'], presentation: 'A', cards: ['succeeds'] },
  ],
);

/** Default duration: two windows, at least long enough for every op and card to appear, at most a minute. */
export function mixedDurationMs(ctx: Parameters<Scenario['run']>[0]): number {
  if (ctx.durationMs) return ctx.durationMs;
  const { windowMs } = rateLimitOf(ctx);
  const rate = ctx.rate ?? mixedRate(ctx, Math.max(1, loadKeys(ctx).length), DEFAULT_SHARE);
  const forCoverage = (MIN_ITERATIONS_FOR_COVERAGE / rate) * 1000;
  return Math.min(60_000, Math.max(2 * windowMs, forCoverage, 3_000));
}

const scenario: Scenario = {
  name: 'mixed',
  description: 'Weighted Direct API and hosted creates, polling to settlement, partial and full refunds, lists and retrievals across keys, under the limit',
  rules,
  rulesFor,
  thresholds: ['http_req_failed: rate<0.01', 'http_req_duration{op:create}: p(99)<2000', 'http_req_duration{op:retrieve}: p(99)<1000'],
  defaultSuite: true,
  async run(ctx) {
    await runMixed(ctx, { durationMs: mixedDurationMs(ctx) });
    // ERR-5 covers error responses too, and the load above answers almost only 2xx: one
    // retrieval of a payment that does not exist per key (404 resource_missing, still JSON).
    for (const k of loadKeys(ctx)) {
      if (ctx.signal.aborted) break;
      await api(ctx, k).retrieve(unknownPaymentId(), { group: 'mixed-error-json', unknownId: true });
    }
  },
};
export default scenario;
