/**
 * chaos: the mixed workload keeps running while each Toxiproxy toxic in turn acts on the
 * upstream link (service -> processor; proxy `upstream`), then a client-link fault
 * (paystorm -> service; proxy `client`) delays responses past the client's time-out so the
 * client retries with the same Idempotency-Key (FT-3). The schedule is data (`faults`), applied
 * by the engine from the scenario's start; the scenario times its probes against it.
 * - During every upstream fault: auth, rate-limit headers and idempotency replays are probed
 *   (`chaos-ft5-<n>`): they must behave as without the fault.
 * - `chaos-client-retry-<n>`: creates with a 1 s time-out and retries while every response is
 *   delayed 3 s: they reach the service, time out, and are retried with the same key.
 * - After the schedule and a heal period, every payment created is retrieved until terminal
 *   (none lost, all settle).
 * Needs both proxies (`--proxy upstream=…` and `--proxy client=…`, or the embedded stack).
 */
import type { FaultRunInfo, Scenario, ScenarioContext, KeyHandle } from '../src/spec/scenario.ts';
import { parseFaultSchedule, scheduleLengthMs, type FaultStep } from '../src/spec/faults.ts';
import { api, cardFor, idemKey, nap, paymentInput, poll, pool, settleWaitMs, step, type Api } from './lib/common.ts';
import { loadKeys } from './lib/keys.ts';
import { runMixed } from './lib/mixed-load.ts';
import { declareRules } from './lib/rules.ts';

export const UPSTREAM_PROXY = 'upstream';
export const CLIENT_PROXY = 'client';
const STEP_MS = 8_000;
const GAP_MS = 4_000;
/**
 * Client-link fault: every response delayed past the client's time-out for a short window.
 * The first attempts of the probe creates reach the service (only responses are delayed),
 * time out, and are retried with the same Idempotency-Key until the window is over; the
 * retry that gets through shows whether a second payment was made.
 */
const CLIENT_FAULT_MS = 6_000;
const CLIENT_LATENCY_MS = 3_000;
const CLIENT_TIMEOUT_MS = 1_000;
/** Enough retries to outlast the window at any time scale (1 s time-outs plus the client's 1, 2, 4… s backoff, scaled). */
const CLIENT_RETRIES = 8;
const CLIENT_PROBES = 4;
const HEAL_MS = 20_000;

const upstreamToxics: { type: FaultStep['type']; attributes?: Record<string, number>; toxicity?: number }[] = [
  { type: 'latency', attributes: { latency: 1_500, jitter: 500 } },
  { type: 'timeout', attributes: { timeout: 0 }, toxicity: 0.5 },
  { type: 'reset_peer', attributes: { timeout: 0 }, toxicity: 0.5 },
  { type: 'bandwidth', attributes: { rate: 1 } },
  { type: 'slow_close', attributes: { delay: 2_000 } },
  { type: 'slicer', attributes: { average_size: 16, size_variation: 8, delay: 1_000 } },
  { type: 'limit_data', attributes: { bytes: 64 } },
  { type: 'down' },
];

/** The schedule with upstream toxics of `stepMs` each, `gapMs` apart, then the client-link fault. */
export function buildChaosSchedule(stepMs: number, gapMs: number): FaultStep[] {
  return parseFaultSchedule(
    [
      ...upstreamToxics.map((t, i) => ({
        at: Math.round(gapMs / 2 + i * (stepMs + gapMs)),
        duration: Math.round(stepMs),
        proxy: UPSTREAM_PROXY,
        type: t.type,
        ...(t.toxicity !== undefined ? { toxicity: t.toxicity } : {}),
        ...(t.attributes ? { attributes: t.attributes } : {}),
      })),
      {
        at: Math.round(gapMs / 2 + upstreamToxics.length * (stepMs + gapMs)),
        duration: CLIENT_FAULT_MS,
        proxy: CLIENT_PROXY,
        type: 'latency',
        stream: 'downstream',
        toxicity: 1,
        attributes: { latency: CLIENT_LATENCY_MS },
      },
    ],
    'chaos.faults',
  );
}

/** The full-length schedule: 8 s per upstream toxic, 4 s between. */
export const CHAOS_SCHEDULE: FaultStep[] = buildChaosSchedule(STEP_MS, GAP_MS);

/** Shortest upstream fault window a fitted schedule uses: long enough for retries to meet the fault. */
const MIN_STEP_MS = 1_500;

/**
 * The schedule for one run: full length, or fitted into --duration (the heal period takes a
 * quarter of it, at most HEAL_MS), with each upstream toxic between MIN_STEP_MS and STEP_MS.
 */
export function chaosPlan(run: FaultRunInfo): { schedule: FaultStep[]; healMs: number } {
  if (run.durationMs === undefined) return { schedule: CHAOS_SCHEDULE, healMs: HEAL_MS };
  const healMs = Math.min(HEAL_MS, Math.max(3_000, run.durationMs / 4));
  const budget = run.durationMs - healMs - CLIENT_FAULT_MS;
  // 8 steps of `step` with gaps of step/2 between and a quarter step before the first: 12.25 steps.
  const stepMs = Math.min(STEP_MS, Math.max(MIN_STEP_MS, budget / (upstreamToxics.length * 1.5 + 0.25)));
  return { schedule: buildChaosSchedule(stepMs, stepMs / 2), healMs };
}

const { rules, rulesFor } = declareRules(['FT-1', 'FT-2', 'FT-3', 'FT-4', 'FT-5', 'SM-1', 'SM-2', 'AUTH-1', 'IDEM-3'], []);

/** Probes that must not change while the upstream fails: a 401, rate headers, an idempotent replay. */
async function ft5Probe(ctx: ScenarioContext, a: Api, n: number): Promise<void> {
  const group = `chaos-ft5-${n}`;
  await a.raw({ method: 'GET', path: '/v1/payments?limit=1', auth: 'missing' }, { group });
  await a.list({ limit: 1 }, { group });
  const card = cardFor(ctx, 'succeeds');
  if (!card) return;
  const input = paymentInput(ctx, card);
  const k = idemKey(ctx, `ft5-${n}`);
  await a.create(input, { idemKey: k, group, cardOutcome: 'succeeds', retries: 2 });
  await a.create(input, { idemKey: k, group, cardOutcome: 'succeeds', retries: 2 });
}

async function run(ctx: ScenarioContext): Promise<void> {
  const keys = loadKeys(ctx);
  if (keys.length === 0) return ctx.log('chaos: no test key; skipping');
  const t0 = ctx.now();
  const created: { key: KeyHandle; id: string }[] = [];
  const MAX_TRACKED = 5_000;
  const onCreated = (key: KeyHandle, id: string) => {
    if (created.length < MAX_TRACKED) created.push({ key, id });
  };
  const probeApi = api(ctx, keys[0]);
  // The engine applies the same plan (faults.scheduleFor): probes are timed against it.
  const { schedule, healMs } = chaosPlan({ ...(ctx.durationMs !== undefined ? { durationMs: ctx.durationMs } : {}), timeScale: ctx.timeScale, embedded: ctx.target.embedded });
  const upstreamSteps = schedule.filter((s) => s.proxy === UPSTREAM_PROXY);
  const clientSteps = schedule.filter((s) => s.proxy === CLIENT_PROXY);
  const total = scheduleLengthMs(schedule) + healMs;

  const load = runMixed(ctx, { durationMs: ctx.durationMs ?? total, retries: 2, onCreated });

  const probes = (async () => {
    // FT-5 probes in the middle of each upstream fault.
    for (let i = 0; i < upstreamSteps.length && !ctx.signal.aborted; i++) {
      const s = upstreamSteps[i];
      await nap(ctx, t0 + s.at + s.duration / 2 - ctx.now());
      await step(ctx, `ft5 ${i + 1}`, () => ft5Probe(ctx, probeApi, i + 1));
    }
    // Client-link fault: creates that time out and are retried with the same Idempotency-Key.
    for (const s of clientSteps) {
      await nap(ctx, t0 + s.at + 300 - ctx.now());
      await pool(ctx, Array.from({ length: CLIENT_PROBES }, (_, i) => i + 1), CLIENT_PROBES, async (n) => {
        await nap(ctx, (n - 1) * Math.min(500, s.duration / (2 * CLIENT_PROBES)));
        const card = cardFor(ctx, 'succeeds');
        const group = `chaos-client-retry-${n}`;
        const opts = { group, timeoutMs: CLIENT_TIMEOUT_MS, retries: CLIENT_RETRIES };
        const r = card ? await probeApi.create(paymentInput(ctx, card), { ...opts, cardOutcome: 'succeeds' }) : await probeApi.createHosted(paymentInput(ctx, null), opts);
        if (r.payment) onCreated(probeApi.key, r.payment.id);
        else ctx.log(`chaos: client-retry probe ${n} ended ${r.status || r.record.failure} after ${(r.record.attempt ?? 0) + 1} attempt(s)`);
      });
    }
  })();

  await Promise.all([load, probes]);

  // Healed: every payment answered 201 is still there and settles.
  const byKey = new Map(keys.map((k) => [k.label, api(ctx, k)]));
  const bound = Math.max(settleWaitMs(ctx), healMs);
  await pool(ctx, created, 8, async ({ key, id }) => {
    const a = byKey.get(key.label) ?? api(ctx, key);
    await poll(ctx, a, id, { maxWaitMs: bound, group: 'chaos-after-heal' });
  });
  ctx.log(`chaos: ${created.length} payments checked after the faults healed`);
}

const scenario: Scenario = {
  name: 'chaos',
  description: 'Mixed traffic under each upstream toxic in turn, then client time-outs retried with the same Idempotency-Key; every payment retrieved and settled afterwards',
  rules,
  rulesFor,
  faults: { schedule: CHAOS_SCHEDULE, scheduleFor: (run) => chaosPlan(run).schedule },
  thresholds: ['http_req_duration{op:retrieve}: p(99)<5000'],
  defaultSuite: false,
  run,
};
export default scenario;
