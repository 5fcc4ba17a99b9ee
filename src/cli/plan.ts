/**
 * How long a run will take, said before any load: per scenario, its waits (rate windows, an
 * abandoned 3DS challenge, webhook retries, settling) and its requests, from the same helpers the
 * scenarios size their waits with, so the plan follows them. Against a remote target with the
 * spec's 60 s window the rate-limit probe alone waits about four windows; the plan line says so.
 */
import type { KeyHandle, Scenario, ScenarioContext, ScenarioEnv } from '../spec/index.ts';
import { LIMITS } from '../spec/limits.ts';
import { defaultSettleBoundMs } from '../spec/scenario.ts';
import { mixedDurationMs } from '../../scenarios/mixed.ts';
import { SOAK_SHARE, soakDurationMs } from '../../scenarios/soak.ts';
import { mixedRate, REQUESTS_PER_ITERATION } from '../../scenarios/lib/mixed-load.ts';
import { loadKeys } from '../../scenarios/lib/keys.ts';
import { DEFAULT_SHARE } from '../../scenarios/lib/pace.ts';
import { abandonWaitMs } from '../../scenarios/flows.ts';
import { retryTailMs } from '../../scenarios/webhooks.ts';
import { rateLimitProbeMs } from '../../scenarios/rate-limit.ts';
import { settleWaitMs } from '../../scenarios/lib/common.ts';
import type { FaultRunInfo, FaultStep } from '../spec/index.ts';

export interface PlanInput {
  scenarios: readonly Scenario[];
  env: ScenarioEnv;
  embedded: boolean;
  limit: number;
  windowMs: number;
  timeScale: number;
  durationMs?: number;
  rate?: number;
  /** The webhook receiver's ack time-out, when the run has one. */
  ackTimeoutMs?: number;
  /** WH-9: --webhook-retry-within, when declared (the webhooks scenario waits that long for retries at most). */
  retryWithinMs?: number;
  /** For the fault schedules (chaos phases). */
  faultRun: FaultRunInfo;
}

export interface ScenarioPlan {
  name: string;
  ms: number;
  /** About how many requests it makes (the load scenarios: their rate for their length). */
  requests: number;
  /** What the time goes to, when it is more than requests (e.g. "4 rate windows of 60 s"). */
  why: string;
}

export interface SuitePlan {
  totalMs: number;
  /** About how many requests the run makes: what its judge will hold (judge-memory.ts judgeMemoryForecast). */
  requests: number;
  scenarios: ScenarioPlan[];
  /** One line for the console: "about 8 min: rate-limit waits about 4 windows of 60 s (4.3 min), ...". */
  line: string;
}

/** Requests of one scenario of the default suite (a default embedded run's counts, rounded up) at a remote round trip. */
const REQUESTS: Record<string, number> = { 'auth-and-input': 120, idempotency: 80, refunds: 50, lists: 90, flows: 260, webhooks: 60 };
/**
 * Round trip assumed for a remote target (requests mostly sequential), and for the embedded one.
 * After the mixed load the keys' pacers (scenarios/lib/pace.ts) hold the next scenarios back
 * until its requests age out of the window: about a third of a window in all (20 s measured at
 * 60 s and 500, embedded).
 */
const REMOTE_RTT_MS = 100;
const EMBEDDED_RTT_MS = 3;

/** A stand-in for what the scenarios' sizing helpers read of their context (target, keys, scale, duration, webhooks). */
function planContext(i: PlanInput): ScenarioContext {
  const keys = i.env.keys.map((k, index) => ({ ...k, index })) as KeyHandle[];
  return {
    scenario: 'plan',
    target: { url: '', embedded: i.embedded, presentation: i.env.presentation, rateLimit: { limit: i.limit, windowMs: i.windowMs } },
    keys,
    testKeys: keys.filter((k) => k.mode === 'test'),
    timeScale: i.timeScale,
    ...(i.durationMs !== undefined ? { durationMs: i.durationMs } : {}),
    ...(i.rate !== undefined ? { rate: i.rate } : {}),
    webhooks: i.env.webhooks?.wired
      ? { deliveries: () => 0, ackTimeoutMs: i.ackTimeoutMs ?? LIMITS.webhookAckTimeoutMs, ...(i.retryWithinMs !== undefined ? { retryWithinMs: i.retryWithinMs } : {}) }
      : null,
  } as unknown as ScenarioContext;
}

function minutes(ms: number): string {
  if (ms < 90_000) return `${Math.max(1, Math.round(ms / 1000))} s`;
  return `${Math.round(ms / 6_000) / 10} min`;
}

export function planSuite(i: PlanInput): SuitePlan {
  const ctx = planContext(i);
  const rtt = i.embedded ? EMBEDDED_RTT_MS : REMOTE_RTT_MS;
  let pacing = 0;
  const req = (name: string) => {
    const ms = (REQUESTS[name] ?? 50) * rtt + pacing;
    pacing = 0;
    return ms;
  };
  const out: ScenarioPlan[] = [];
  /** Requests of a mixed load of `ms` at its rate (--rate, else the share of the keys' limit it runs at). */
  const load = (ms: number, share: number) => ((i.rate ?? mixedRate(ctx, Math.max(1, loadKeys(ctx).length), share)) * REQUESTS_PER_ITERATION * ms) / 1000;
  for (const s of i.scenarios) {
    let requests = REQUESTS[s.name] ?? 50;
    const p = (ms: number, why = '') => out.push({ name: s.name, ms: Math.round(ms), why, requests: Math.round(requests) });
    switch (s.name) {
      case 'rate-limit': {
        const r = rateLimitProbeMs(ctx, rtt);
        p(r.ms, `waits about ${r.windows} windows of ${minutes(i.windowMs)}`);
        break;
      }
      case 'mixed':
        requests = load(mixedDurationMs(ctx), DEFAULT_SHARE);
        p(mixedDurationMs(ctx), 'load');
        pacing = i.windowMs / 3;
        break;
      case 'soak':
        // Its own default (30 minutes), not mixed's: a plan of seconds left a default soak without snapshots.
        requests = load(soakDurationMs(ctx), SOAK_SHARE);
        p(soakDurationMs(ctx), 'load');
        pacing = i.windowMs / 3;
        break;
      case 'flows':
        p(abandonWaitMs(ctx) + req(s.name), 'waits for an abandoned 3DS challenge to expire');
        break;
      case 'webhooks':
        // --duration bounds the scenario's wait for deliveries and retries (scenarios/webhooks.ts).
        p(i.env.webhooks?.wired ? Math.min(settleWaitMs(ctx) + retryTailMs(ctx), i.durationMs ?? Infinity) + req(s.name) : req(s.name), i.env.webhooks?.wired ? 'waits at most this long for deliveries and the retries of failed ones' : '');
        break;
      case 'refunds':
        p(defaultSettleBoundMs(i.embedded, i.timeScale) + req(s.name), 'waits for refunds to settle');
        break;
      default: {
        const schedule: FaultStep[] = s.faults?.scheduleFor?.(i.faultRun) ?? s.faults?.schedule ?? [];
        const proxies = (i.env as { faultProxies?: readonly string[] }).faultProxies;
        const steps = schedule.filter((st) => !proxies || proxies.includes(st.proxy));
        if (steps.length) {
          const end = Math.max(...steps.map((st) => st.at + st.duration));
          // A fault schedule runs the mixed load under it (scenarios/chaos.ts).
          requests = load(i.durationMs ?? end, DEFAULT_SHARE);
          p(end + settleWaitMs(ctx), 'fault schedule and healing');
        } else if (s.faults) p(0, 'skipped: no proxy for its faults');
        else p(req(s.name));
      }
    }
  }
  const totalMs = out.reduce((a, x) => a + x.ms, 0);
  const big = [...out].filter((x) => x.why && x.ms >= 0.05 * totalMs).sort((a, b) => b.ms - a.ms);
  const rest = totalMs - big.reduce((a, x) => a + x.ms, 0);
  const parts = big.map((x) => `${x.name} ${x.why} (${minutes(x.ms)})`);
  if (rest > 0) parts.push(`the rest ${minutes(rest)}`);
  return { totalMs, requests: out.reduce((a, x) => a + x.requests, 0), scenarios: out, line: `about ${minutes(totalMs)}: ${parts.join('; ')}` };
}

/** The caps a run stops at by itself (src/engine/run.ts RunCaps). */
export interface PlannedCaps {
  maxRequests: number;
  maxDurationMs: number;
}

/**
 * The run's caps: as given; else the defaults (2,000,000 requests, 4 h), stretched to a plan that
 * goes past them with room to spare (a quarter more, and ten minutes): a 24-hour soak is not cut
 * at 4 hours. A cap given below the plan stands, and `warnings` says where the run will stop.
 */
export function capsForPlan(plan: Pick<SuitePlan, 'totalMs' | 'requests'>, given: { maxRequests?: number; maxDurationMs?: number }, defaults: PlannedCaps): { caps: PlannedCaps; warnings: string[] } {
  const warnings: string[] = [];
  const roomMs = Math.ceil(plan.totalMs * 1.25 + 10 * 60_000);
  const roomRequests = Math.ceil(plan.requests * 1.25);
  const maxDurationMs = given.maxDurationMs ?? Math.max(defaults.maxDurationMs, plan.totalMs > defaults.maxDurationMs ? roomMs : 0);
  const maxRequests = given.maxRequests ?? Math.max(defaults.maxRequests, plan.requests > defaults.maxRequests ? roomRequests : 0);
  if (given.maxDurationMs !== undefined && plan.totalMs > given.maxDurationMs) {
    warnings.push(`the plan (about ${minutes(plan.totalMs)}) is longer than --max-duration (${minutes(given.maxDurationMs)}): the run will stop there and be judged on what it measured. To run it whole: --max-duration ${Math.ceil(roomMs / 60_000)}m`);
  }
  if (given.maxRequests !== undefined && plan.requests > given.maxRequests) {
    warnings.push(`the plan makes about ${Math.round(plan.requests).toLocaleString('en')} requests, more than --max-requests (${given.maxRequests.toLocaleString('en')}): the run will stop there and be judged on what it measured. To run it whole: --max-requests ${roomRequests}`);
  }
  return { caps: { maxRequests, maxDurationMs }, warnings };
}
