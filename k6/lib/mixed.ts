/**
 * The mixed load shared by k6/scenarios/mixed.ts and soak.ts: weighted Direct API and
 * hosted creates, polling until settled, partial and full refunds, lists and
 * retrievals, at an open-model arrival rate under the keys' rate limits.
 */
import exec from 'k6/execution';
import type { Options, Scenario } from 'k6/options';
import type { Presentation } from '../../src/spec/payment.ts';
import { LIMITS, RATE_HEADERS } from '../../src/spec/limits.ts';
import { Api, header } from './api.ts';
import { arrivalPlan, mixedConfig, parseCards, parseKeys, parsePresentation, parseTarget, pickWeighted, testKeysOf, type KeyConfig, type ArrivalPlan, type MixedConfig } from './config.ts';
import { detectTargetPresentation, directFlow, hostedFlow, listFlow, retrieveFlow, type FlowCtx } from './flows.ts';
import { loadThresholds, type Thresholds } from './thresholds.ts';
import { K6_SYSTEM_TAGS } from '../../src/history/k6-tags.ts';
import { recordEnd, recordRun, watchCards, windowMsOf } from './record.ts';
import { flushChecks, foldChecks } from './checks.ts';

export interface SetupData {
  presentation: Presentation;
  /** X-RateLimit-Limit as the target reported it (null if absent). */
  limit: number | null;
  /** Wall time (epoch ms) at setup's end: teardown's end marker measures the scenarios' time from it. */
  setupWall: number;
}

// Init context: parsed once per VU. KEYS may be absent while k6 only archives or
// inspects the script (k6-operator's initializer): setup() refuses to run then.
export const KEYS: KeyConfig[] = parseKeys(__ENV);
export const TEST_KEYS: KeyConfig[] = testKeysOf(KEYS);
export const CARDS = parseCards(__ENV.CARDS);
export const CFG: MixedConfig = mixedConfig(__ENV);
export const PRESENTATION: Presentation | null = parsePresentation(__ENV);
export const PLAN: ArrivalPlan = arrivalPlan(__ENV, TEST_KEYS.length, CFG);
watchCards(CARDS);
// Every answer of a long run is checked: its checks are written as one (checks.ts).
foldChecks();

let target: string | null = null;
function targetUrl(): string {
  if (target === null) target = parseTarget(__ENV);
  return target;
}

/** A constant-arrival-rate scenario running `exec` at the planned rate for `duration`. */
export function arrivalScenario(execName: string, duration: string): Scenario {
  return {
    executor: 'constant-arrival-rate',
    rate: PLAN.ratePerMinute,
    timeUnit: '1m',
    duration,
    preAllocatedVUs: PLAN.preAllocatedVUs,
    maxVUs: PLAN.maxVUs,
    gracefulStop: `${Math.ceil(CFG.settleMaxWaitS + CFG.refundMaxWaitS + 10)}s`,
    exec: execName,
  };
}

export function baseOptions(scenarios: Record<string, Scenario>, thresholds: Thresholds = loadThresholds()): Options {
  return {
    scenarios,
    thresholds,
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
    setupTimeout: '2m',
    userAgent: 'paystorm-k6',
    systemTags: [...K6_SYSTEM_TAGS],
  };
}

export function mixedSetup(scriptName: string): SetupData {
  if (TEST_KEYS.length === 0) {
    throw new Error(`${scriptName}: KEYS has no test key. Set KEYS=[merchant:]svc_test_sk_…[,…] (comma-separated).`);
  }
  const api = new Api(targetUrl(), TEST_KEYS[0], CFG.requestTimeout);
  const det = detectTargetPresentation(api, PRESENTATION, CARDS, CFG.currency);
  const probe = api.list({ limit: 1 });
  const limitHeader = Number(header(probe, RATE_HEADERS.limit));
  const limit = Number.isFinite(limitHeader) && limitHeader > 0 ? limitHeader : null;
  console.log(
    `paystorm k6 ${scriptName}: ${targetUrl()}, presentation ${det.presentation} (from ${det.via}); ` +
      `test keys ${TEST_KEYS.map((k) => k.label).join(', ')}; ${PLAN.ratePerMinute} iterations/min ` +
      `(≈${PLAN.requestsPerIteration.toFixed(1)} requests each, budget ${Math.round(PLAN.budgetPerMinute)} requests/min)`,
  );
  const assumed = Number(__ENV.RATE_LIMIT || LIMITS.rateLimitPerWindow);
  if (limit !== null && !__ENV.RATE && limit !== assumed) {
    console.warn(`${scriptName}: the target reports X-RateLimit-Limit ${limit} but the rate was planned for ${assumed}; set RATE_LIMIT=${limit} (or RATE).`);
  }
  flushChecks();
  const setupWall = recordRun({ target: targetUrl(), presentation: det.presentation, rateLimit: limit !== null ? { limit, windowMs: windowMsOf(__ENV) } : null, keys: KEYS, cardOutcomes: Object.keys(CARDS), windowMs: windowMsOf(__ENV) });
  return { presentation: det.presentation, limit, setupWall };
}

/** teardown(): the end marker (the plan and setup's wall time) by which `paystorm check` judges whether the scenario ran its whole duration. */
export function mixedTeardown(options: Options, data: SetupData | undefined): void {
  recordEnd(options.scenarios, data ? data.setupWall : undefined);
}

/** One mixed iteration. Keys rotate by the test-wide iteration number, so load spreads evenly. */
export function mixedIteration(data: SetupData): void {
  try {
    runIteration(data);
  } finally {
    flushChecks();
  }
}

function runIteration(data: SetupData): void {
  const n = exec.scenario.iterationInTest;
  const op = pickWeighted(CFG.mix, Math.random());
  // Reads may use any key (live ones too, with ALLOW_LIVE=1); payments only test keys.
  if (op === 'list') {
    listFlow(new Api(targetUrl(), KEYS[n % KEYS.length], CFG.requestTimeout));
    return;
  }
  const ctx: FlowCtx = { api: new Api(targetUrl(), TEST_KEYS[n % TEST_KEYS.length], CFG.requestTimeout), presentation: data.presentation, cfg: CFG, cards: CARDS };
  if (op === 'hosted') hostedFlow(ctx);
  else if (op === 'retrieve') retrieveFlow(ctx);
  else directFlow(ctx, pickWeighted(availableCardMix(), Math.random()));
}

function availableCardMix(): MixedConfig['cardMix'] {
  const out = { ...CFG.cardMix };
  for (const k of Object.keys(out) as (keyof typeof out)[]) if (!CARDS[k]) out[k] = 0;
  if (Object.keys(out).every((k) => out[k as keyof typeof out] === 0)) throw new Error('CARDS/CARD_MIX: no card for any outcome with a weight above 0.');
  return out;
}
