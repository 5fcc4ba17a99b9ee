/**
 * chaos: the mixed workload keeps running while each Toxiproxy toxic in turn acts on the
 * upstream link (service -> processor; proxy `upstream`), then a client-link fault
 * (paystorm -> service; proxy `client`) delays responses past the client's time-out so the
 * client retries with the same Idempotency-Key (FT-3). The schedule is data (`faults`), applied
 * by the engine from the scenario's start; the scenario times its probes against it.
 * - During every upstream fault: auth, rate-limit headers and idempotency replays are probed
 *   (`chaos-ft5-<n>`): they must behave as without the fault.
 * - `chaos-client-retry-<n>`: creates with a 1 s time-out and retries while every response is
 *   delayed 3 s: they reach the service, time out, and are retried with the same key. Each
 *   carries a nonce in its description, and the probe key's newest payments are listed once after
 *   the heal: a second payment a timed-out attempt left behind shows there beside its twin.
 * - After the schedule and a heal period, every payment created is retrieved until terminal
 *   (none lost, all settle), at least until past the settle bound after the last heal (FT-2 can
 *   convict only a payment seen pending later than that), then once more if still unsettled
 *   (lib/settle-check.ts); so are the refunds the load made, where the payment shows them.
 * Needs an `upstream` proxy (`--proxy upstream=…`, or the embedded stack); without a `client` proxy
 * the client-link fault is skipped and FT-3 is not declared. `chaos-short`, the default suite's
 * chaos phase, runs three upstream toxics and the client fault in about 14 s (embedded).
 */
import { randomUUID } from 'node:crypto';
import type { FaultRunInfo, Scenario, ScenarioContext, KeyHandle } from '../src/spec/scenario.ts';
import { scheduleLengthMs, type FaultStep } from '../src/spec/faults.ts';
import { parseFaultSchedule } from '../src/chaos/fault-schedule.ts';
import { api, cardFor, idemKey, nap, paymentInput, pool, settleWaitMs, step, type Api } from './lib/common.ts';
import { pastBoundAt, settleCheck } from './lib/settle-check.ts';
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

export interface UpstreamToxic {
  type: FaultStep['type'];
  attributes?: Record<string, number>;
  toxicity?: number;
}

/**
 * `timeout` at toxicity 1 holds every connection, so every processor call in its window hangs:
 * the one window certain to reach the service (toxicity is rolled per connection, and a service
 * with a few keep-alive connections could otherwise see none of them affected).
 */
const upstreamToxics: UpstreamToxic[] = [
  { type: 'latency', attributes: { latency: 1_500, jitter: 500 } },
  { type: 'timeout', attributes: { timeout: 0 }, toxicity: 1 },
  { type: 'reset_peer', attributes: { timeout: 0 }, toxicity: 0.5 },
  { type: 'bandwidth', attributes: { rate: 1 } },
  { type: 'slow_close', attributes: { delay: 2_000 } },
  { type: 'slicer', attributes: { average_size: 16, size_variation: 8, delay: 1_000 } },
  { type: 'limit_data', attributes: { bytes: 64 } },
  { type: 'down' },
];

/**
 * How long a window of this toxic lasts. A `timeout` window must outlast the service's
 * processor time-out (when declared), with room for calls to start inside it: otherwise no
 * processor call can time out and the rules about what follows a time-out are judged on nothing.
 */
export function windowMs(t: UpstreamToxic, stepMs: number, upstreamTimeoutMs?: number): number {
  if (t.type !== 'timeout' || upstreamTimeoutMs === undefined) return Math.round(stepMs);
  return Math.round(Math.max(stepMs, upstreamTimeoutMs + Math.max(1_000, stepMs / 2)));
}

/** The schedule with the given upstream toxics, `gapMs` apart, then the client-link fault. */
export function buildChaosSchedule(stepMs: number, gapMs: number, opts: { toxics?: readonly UpstreamToxic[]; clientFaultMs?: number; upstreamTimeoutMs?: number; clientFirst?: boolean } = {}): FaultStep[] {
  const toxics = opts.toxics ?? upstreamToxics;
  const clientMs = opts.clientFaultMs ?? CLIENT_FAULT_MS;
  let at = gapMs / 2 + (opts.clientFirst ? clientMs + gapMs : 0);
  const steps = toxics.map((t) => {
    const duration = windowMs(t, stepMs, opts.upstreamTimeoutMs);
    const s = {
      at: Math.round(at),
      duration,
      proxy: UPSTREAM_PROXY,
      type: t.type,
      ...(t.toxicity !== undefined ? { toxicity: t.toxicity } : {}),
      ...(t.attributes ? { attributes: t.attributes } : {}),
    };
    at += duration + gapMs;
    return s;
  });
  return parseFaultSchedule(
    [
      ...steps,
      {
        at: Math.round(opts.clientFirst ? gapMs / 2 : at),
        duration: clientMs,
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

/** The shape of a chaos phase: its upstream toxics, their window length, the client fault and the heal period. */
export interface ChaosShape {
  toxics: readonly UpstreamToxic[];
  stepMs: number;
  gapMs: number;
  clientFaultMs: number;
  healMs: number;
  /**
   * The client-link fault first, with no load but its retry probes, then the load and the
   * upstream faults. For the default suite's phase: every response in a client-link window is
   * delayed past a second; mixed's latency thresholds (create p99 < 2 s, retrieve p99 < 1 s)
   * judge mixed's own traffic (threshold scopes), but a user's --threshold judges the whole run.
   */
  clientFirst: boolean;
}

const FULL: ChaosShape = { toxics: upstreamToxics, stepMs: STEP_MS, gapMs: GAP_MS, clientFaultMs: CLIENT_FAULT_MS, healMs: HEAL_MS, clientFirst: false };

/**
 * The default suite's chaos phase: the three upstream faults that stop or slow the processor
 * (latency, every connection held, the proxy down) and the client-link fault, about 13 s on
 * the embedded target. The client-link fault comes first, before the mixed load starts.
 */
export const SHORT: ChaosShape = {
  toxics: upstreamToxics.filter((t) => t.type === 'latency' || t.type === 'timeout' || t.type === 'down'),
  stepMs: MIN_STEP_MS,
  gapMs: MIN_STEP_MS / 3,
  clientFaultMs: 3_000,
  healMs: 2_000,
  clientFirst: true,
};

/**
 * The schedule for one run: the shape's own length, or fitted into --duration (the heal period
 * takes a quarter of it, at most the shape's), with each upstream toxic between MIN_STEP_MS and
 * the shape's step. A declared upstream time-out lengthens the `timeout` window (windowMs).
 */
export function chaosPlan(run: FaultRunInfo, shape: ChaosShape = FULL): { schedule: FaultStep[]; healMs: number } {
  const opts = { toxics: shape.toxics, clientFaultMs: shape.clientFaultMs, clientFirst: shape.clientFirst, ...(run.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: run.upstreamTimeoutMs } : {}) };
  if (run.durationMs === undefined) {
    const schedule = shape === FULL && run.upstreamTimeoutMs === undefined ? CHAOS_SCHEDULE : buildChaosSchedule(shape.stepMs, shape.gapMs, opts);
    return { schedule, healMs: shape.healMs };
  }
  const healMs = Math.min(shape.healMs, Math.max(3_000, run.durationMs / 4));
  const budget = run.durationMs - healMs - shape.clientFaultMs;
  // n steps of `step` with gaps of step/2 between and a quarter step before the first: 1.5 n + 0.25 steps.
  const stepMs = Math.min(shape.stepMs, Math.max(MIN_STEP_MS, budget / (shape.toxics.length * 1.5 + 0.25)));
  return { schedule: buildChaosSchedule(stepMs, stepMs / 2, opts), healMs };
}

const FT_ALWAYS = ['SM-1', 'SM-2', 'AUTH-1', 'IDEM-3'];
// Without an upstream proxy the phase does not run at all; without a client proxy there is no client-link fault (FT-3).
const declared = (always: string[]) =>
  declareRules(always, [
    { rules: ['FT-1', 'FT-2', 'FT-4', 'FT-5', ...(always.length ? [] : FT_ALWAYS)], proxies: [UPSTREAM_PROXY] },
    { rules: ['FT-3'], proxies: [UPSTREAM_PROXY, CLIENT_PROXY] },
  ]);

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

/** What a chaos phase's schedule is in this run (the engine applies the same plan). */
function planOf(ctx: ScenarioContext, shape: ChaosShape): { schedule: FaultStep[]; healMs: number } {
  return chaosPlan(
    {
      ...(ctx.durationMs !== undefined ? { durationMs: ctx.durationMs } : {}),
      timeScale: ctx.timeScale,
      embedded: ctx.target.embedded,
      ...(ctx.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: ctx.upstreamTimeoutMs } : {}),
    },
    shape,
  );
}

async function runPhase(ctx: ScenarioContext, shape: ChaosShape): Promise<void> {
  const keys = loadKeys(ctx);
  if (keys.length === 0) return ctx.log('chaos: no test key; skipping');
  // No upstream proxy to fault (a real target without --proxy upstream=… or --toxiproxy): nothing to test here.
  if (ctx.faultProxies && !ctx.faultProxies.includes(UPSTREAM_PROXY)) return ctx.log(`chaos: no "${UPSTREAM_PROXY}" proxy to fault; skipped (the run's notes say which flag adds it)`);
  const t0 = ctx.now();
  const created: { key: KeyHandle; id: string; t: number }[] = [];
  const MAX_TRACKED = 5_000;
  const onCreated = (key: KeyHandle, id: string) => {
    if (created.length < MAX_TRACKED) created.push({ key, id, t: ctx.now() });
  };
  const probeApi = api(ctx, keys[0]);
  // The engine applies the same plan (faults.scheduleFor): probes are timed against it.
  const { schedule, healMs } = planOf(ctx, shape);
  const canFault = (p: string) => !ctx.faultProxies || ctx.faultProxies.includes(p);
  const upstreamSteps = schedule.filter((s) => s.proxy === UPSTREAM_PROXY);
  const clientSteps = schedule.filter((s) => s.proxy === CLIENT_PROXY && canFault(s.proxy));
  // The engine starts the schedule with the scenario: its last window closes about here (pastBoundAt's margin covers the rest).
  const lastHeal = t0 + scheduleLengthMs(schedule.filter((s) => canFault(s.proxy)));
  const total = lastHeal - t0 + healMs;

  // The default suite's phase starts its load once the client-link fault (its first window) is over.
  const loadFrom = shape.clientFirst && clientSteps.length > 0 ? clientSteps[0].at + clientSteps[0].duration + 200 : 0;
  const load = (async () => {
    await nap(ctx, t0 + loadFrom - ctx.now());
    await runMixed(ctx, { durationMs: Math.max(1_000, (ctx.durationMs ?? total) - loadFrom), retries: 2, onCreated });
  })();

  // FT-5 probes in the middle of each upstream fault.
  const ft5 = upstreamSteps.map((s, i) => ({ at: s.at + s.duration / 2, run: () => step(ctx, `ft5 ${i + 1}`, () => ft5Probe(ctx, probeApi, i + 1)) }));
  // Client-link fault: creates that time out and are retried with the same Idempotency-Key.
  const retries = clientSteps.map((s) => ({
    at: s.at + 300,
    run: () =>
      pool(ctx, Array.from({ length: CLIENT_PROBES }, (_, i) => i + 1), CLIENT_PROBES, async (n) => {
        await nap(ctx, (n - 1) * Math.min(500, s.duration / (2 * CLIENT_PROBES)));
        const card = cardFor(ctx, 'succeeds');
        const group = `chaos-client-retry-${n}`;
        const opts = { group, timeoutMs: CLIENT_TIMEOUT_MS, retries: CLIENT_RETRIES };
        // A nonce in the description, unique to this logical request: a second payment the timed-out
        // attempts left behind carries it too, and idem-no-ghost-object convicts it wherever it shows (FT-3).
        const input = (c: typeof card) => paymentInput(ctx, c, { description: `paystorm chaos client-retry ${randomUUID()}` });
        const r = card ? await probeApi.create(input(card), { ...opts, cardOutcome: 'succeeds' }) : await probeApi.createHosted(input(null), opts);
        if (r.payment) onCreated(probeApi.key, r.payment.id);
        else ctx.log(`chaos: client-retry probe ${n} ended ${r.status || r.record.failure} after ${(r.record.attempt ?? 0) + 1} attempt(s)`);
      }),
  }));
  const probes = (async () => {
    for (const p of [...ft5, ...retries].sort((a, b) => a.at - b.at)) {
      if (ctx.signal.aborted) break;
      await nap(ctx, t0 + p.at - ctx.now());
      await p.run();
    }
  })();

  await Promise.all([load, probes]);

  // Healed: every payment answered 201 is still there and settles, looked at until past the settle
  // bound after the later of the last heal and its creation (FT-2, SM-6), its refunds too (REF-1).
  const byKey = new Map(keys.map((k) => [k.label, api(ctx, k)]));
  const apiFor = (key: KeyHandle) => byKey.get(key.label) ?? api(ctx, key);
  const { unsettled } = await settleCheck(
    ctx,
    created.map(({ key, id, t }) => ({ api: apiFor(key), id, since: Math.max(lastHeal, t) })),
    { minWaitMs: Math.max(settleWaitMs(ctx), healMs), group: 'chaos-after-heal', finalGroup: 'chaos-settle-check', refundsSince: ctx.now() },
  );
  ctx.log(`chaos: ${created.length} payments checked after the faults healed${unsettled ? `, ${unsettled} looked at once more past the settle bound` : ''}`);
  // The probe key's newest payments once: a ghost of a retried create shows there beside its twin.
  if (clientSteps.length > 0) await probeApi.list({ limit: 100 }, { group: 'chaos-client-retry-walk' });
}

const full = declared(FT_ALWAYS);
const scenario: Scenario = {
  name: 'chaos',
  description: 'Mixed traffic under each upstream toxic in turn, then client time-outs retried with the same Idempotency-Key; every payment retrieved and settled afterwards',
  rules: full.rules,
  rulesFor: full.rulesFor,
  faults: { schedule: CHAOS_SCHEDULE, scheduleFor: (run) => chaosPlan(run).schedule },
  thresholds: ['http_req_duration{op:retrieve}: p(99)<5000'],
  defaultSuite: false,
  run: (ctx) => runPhase(ctx, FULL),
};
export default scenario;

const short = declared([]);
/** The default suite's chaos phase (SHORT): skipped, with its rules undeclared, when the run has no upstream proxy. */
export const chaosShort: Scenario = {
  name: 'chaos-short',
  description: 'A short chaos phase: upstream latency, every processor connection held, the processor down, then client time-outs retried with the same Idempotency-Key; every payment settled afterwards',
  rules: short.rules,
  rulesFor: short.rulesFor,
  faults: { schedule: buildChaosSchedule(SHORT.stepMs, SHORT.gapMs, { toxics: SHORT.toxics, clientFaultMs: SHORT.clientFaultMs, clientFirst: true }), scheduleFor: (run) => chaosPlan(run, SHORT).schedule },
  defaultSuite: true,
  run: (ctx) => runPhase(ctx, SHORT),
};
