/**
 * Runs scenarios against a target: builds each scenario's context, enforces the
 * run's hard caps (max requests, max duration: always on), and writes the `end`
 * record. The `run` record is the caller's (makeRunRecord helps), since it needs
 * facts learned before the run (presentation, rate limit).
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { type BurstSpec, type CardOutcome, type ExecutorSpec, type FaultRunInfo, type FaultStep, type KeyHandle, type Scenario, type ScenarioContext, type TargetInfo } from '../spec/index.ts';
import { HISTORY_FILE, HISTORY_VERSION, type EndRecord, type KeyInfo, type RunRecord } from '../history/index.ts';
import { ClientFactory, RunStoppedError, abortableSleep, type KeySecret, type RequestGate } from '../client/index.ts';
import type { RunClock } from './clock.ts';
import { runBurst } from './burst.ts';
import { runExecutor, type IterationFn } from './executors.ts';
import type { HistoryWriter } from '../history/writer.ts';
import type { MetricsAggregator } from '../history/metrics.ts';
import type { Progress } from './progress.ts';
import { LiveRun } from './live.ts';
import { seededRandom } from '../spec/random.ts';

export interface RunCaps {
  maxRequests: number;
  maxDurationMs: number;
}

/** Reasons a run stops early; a reason starting with `cap` means a cap was hit. */
export const STOP_REASONS = {
  maxRequests: 'cap:max-requests',
  maxDuration: 'cap:max-duration',
  interrupted: 'interrupted',
  /** `violation: <invariant id>`: --abort-on-violation stopped the run at a confirmed violation. */
  violation: 'violation',
} as const;

export interface RunScenariosOptions {
  scenarios: readonly Scenario[];
  target: TargetInfo;
  keys: readonly KeySecret[];
  cards: Partial<Record<CardOutcome, string>>;
  clock: RunClock;
  writer: HistoryWriter;
  caps: RunCaps;
  seed: number;
  timeScale: number;
  /** External stop (SIGINT). */
  signal?: AbortSignal;
  /** Stops the run early with the signal's reason as the end record's (`violation: <id>`, --abort-on-violation). */
  stop?: AbortSignal;
  /** The console line: told everything `live` is told, started and stopped with the load. */
  progress?: Progress;
  /** What the run shows while it goes (records, dropped iterations, scenarios, phases); a fresh one when absent. */
  live?: LiveRun;
  /** Fed every record and every dropped iteration. */
  metrics?: MetricsAggregator;
  webhooks?: ScenarioContext["webhooks"];
  /** Default per-request time-out (default 30 s). */
  timeoutMs?: number;
  /** --duration / --rate, passed to scenarios. */
  durationMs?: number;
  rate?: number;
  log?: (message: string) => void;
  /** Connections per origin for the undici client (default unlimited). */
  connections?: number | null;
  /**
   * The run record (makeRunRecord), written first when given, after metrics and
   * progress are subscribed, so a live aggregator sees exactly what a replay of
   * the file sees. Otherwise the caller writes it before calling runScenarios.
   */
  runRecord?: RunRecord;
  /** Applies fault schedules (a chaos session): each scenario's `faults` while it runs, `extraFaults` across the run. */
  chaos?: FaultScheduler;
  /** A fault schedule from the config file, started with the run (times from run start). */
  extraFaults?: readonly FaultStep[];
  /** Proxies a fault step can act on (the run checked them before load); a scenario's steps on other proxies are skipped. Absent: all. */
  faultProxies?: readonly string[];
  /** The service's declared time-out for one processor call (ms), for schedules sized from it. */
  upstreamTimeoutMs?: number;
  /** A refund amount the target's sandbox fails, when known (ScenarioContext.refundFailAmount). */
  refundFailAmount?: number;
  /** The oracle's settle bound (ms), handed to scenarios that wait past it. */
  settleBoundMs?: number;
  /** Mid-run report snapshot, handed to scenarios as ctx.snapshot. */
  snapshot?: (label: string) => Promise<void>;
  /**
   * Stops whatever else writes records (the webhook receiver) once the traffic is over, so the
   * end record is the file's last line (history format v1). A failure is logged, never lost.
   */
  beforeEnd?: () => Promise<void>;
}

/** What a scenario's fault schedule may depend on in this run. */
export function faultRunInfo(o: { durationMs?: number; timeScale: number; target: { embedded: boolean }; upstreamTimeoutMs?: number }): FaultRunInfo {
  return {
    ...(o.durationMs !== undefined ? { durationMs: o.durationMs } : {}),
    timeScale: o.timeScale,
    embedded: o.target.embedded,
    ...(o.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: o.upstreamTimeoutMs } : {}),
  };
}

/** What the engine needs of a chaos session: run a schedule on the clock until it ends or the signal aborts. */
export interface FaultScheduler {
  runSchedule(steps: readonly FaultStep[], signal?: AbortSignal): Promise<unknown>;
}

export interface RunOutcome {
  complete: boolean;
  reason: string;
  requests: number;
  dropped: number;
  /** Scenarios that threw (their exchanges are still recorded). */
  scenarioErrors: { scenario: string; message: string }[];
}

/** The request budget and the stop switch of one run. */
export class RunBudget implements RequestGate {
  requests = 0;
  stopReason = '';
  readonly controller = new AbortController();

  constructor(readonly maxRequests: number) {
    // Every virtual user's wait (a back-off, a poll interval) listens on this signal while it
    // lasts, so more than 10 at once is normal, not a leak: no MaxListenersExceededWarning.
    setMaxListeners(0, this.controller.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  admit(): boolean {
    if (this.controller.signal.aborted) return false;
    if (this.requests >= this.maxRequests) {
      this.stop(STOP_REASONS.maxRequests);
      return false;
    }
    this.requests++;
    // The last admitted request: stop executors from starting more iterations now.
    if (this.requests >= this.maxRequests) this.stop(STOP_REASONS.maxRequests);
    return true;
  }

  stop(reason: string): void {
    if (this.controller.signal.aborted) return;
    this.stopReason = reason;
    this.controller.abort(reason);
  }
}

/** The run's seeded generator (src/spec/random.ts), re-exported for the engine's users. */
export { seededRandom };

/** Per-scenario seed: independent of the order scenarios run in. */
export function scenarioSeed(seed: number, name: string): number {
  let h = 2166136261 ^ (seed >>> 0);
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function newRunId(now: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}-${randomBytes(2).toString('hex')}`;
}

export function historyPath(runId: string, reportsDir = 'reports'): string {
  return join(reportsDir, runId, HISTORY_FILE);
}

export interface MakeRunRecordOptions {
  runId: string;
  clock: RunClock;
  target: TargetInfo;
  keys: readonly (KeyInfo | KeyHandle)[];
  scenarios: readonly Pick<Scenario, 'name' | 'rules' | 'thresholds'>[];
  seed: number;
  timeScale: number;
  settleBoundMs: number;
  webhooks?: RunRecord['webhooks'];
  cardOutcomes: readonly CardOutcome[];
  facts?: Record<string, unknown>;
}

/** The `run` record (the caller writes it first). Keys appear as labels and facts only. */
export function makeRunRecord(o: MakeRunRecordOptions): RunRecord {
  return {
    v: HISTORY_VERSION,
    kind: 'run',
    runId: o.runId,
    wall: o.clock.originWall,
    target: { url: o.target.url, embedded: o.target.embedded, presentation: o.target.presentation ?? null, ...(o.target.probePayments?.length ? { probePayments: [...o.target.probePayments] } : {}) },
    rateLimit: o.target.rateLimit,
    keys: o.keys.map((k) => {
      const info: KeyInfo = { label: k.label, merchant: k.merchant, mode: k.mode, prefix: k.prefix, last4: k.last4 };
      if (k.directApi !== undefined) info.directApi = k.directApi;
      if (k.shared) info.shared = true;
      return info;
    }),
    scenarios: o.scenarios.map((s) => ({ name: s.name, rules: [...s.rules], ...(s.thresholds?.length ? { thresholds: [...s.thresholds] } : {}) })),
    seed: o.seed,
    timeScale: o.timeScale,
    settleBoundMs: o.settleBoundMs,
    webhooks: o.webhooks ?? null,
    cardOutcomes: [...o.cardOutcomes],
    ...(o.facts ? { facts: o.facts } : {}),
  };
}

/** An executor's planned arrival rate (iterations/s, the mean over a ramp), or null for a closed model. */
export function plannedRate(spec: ExecutorSpec): number | null {
  if (spec.executor === 'constant-arrival-rate') return spec.rate;
  if (spec.executor !== 'ramping-arrival-rate') return null;
  let from = spec.startRate;
  let area = 0;
  let ms = 0;
  for (const st of spec.stages) {
    area += ((from + st.target) / 2) * st.durationMs;
    ms += st.durationMs;
    from = st.target;
  }
  return ms > 0 ? area / ms : spec.startRate;
}

export async function runScenarios(o: RunScenariosOptions): Promise<RunOutcome> {
  const { clock, writer } = o;
  const budget = new RunBudget(o.caps.maxRequests);
  const signal = budget.signal;
  const timeoutMs = o.timeoutMs ?? 30_000;
  const log = o.log ?? ((m: string) => (o.progress ? o.progress.log(m) : process.stderr.write(m + '\n')));
  let dropped = 0;
  const load: NonNullable<EndRecord['load']> = [];
  const scenarioErrors: RunOutcome['scenarioErrors'] = [];

  const onExternalAbort = () => budget.stop(STOP_REASONS.interrupted);
  if (o.signal?.aborted) onExternalAbort();
  o.signal?.addEventListener('abort', onExternalAbort, { once: true });
  const onStopAsked = () => budget.stop(String(o.stop?.reason));
  if (o.stop?.aborted) onStopAsked();
  o.stop?.addEventListener('abort', onStopAsked, { once: true });
  const durationCap = setTimeout(() => budget.stop(STOP_REASONS.maxDuration), Math.max(0, o.caps.maxDurationMs - clock.now()));

  const live = o.live ?? new LiveRun();
  const unsubscribe = [o.metrics ? writer.subscribe((r) => o.metrics!.add(r)) : null, writer.subscribe(live.record), o.progress ? live.watch(o.progress.watcher()) : null];
  if (o.runRecord) writer.write(o.runRecord);
  o.progress?.start();

  const factory = new ClientFactory({
    baseUrl: o.target.url,
    keys: o.keys,
    presentation: o.target.presentation,
    clock,
    sink: (r) => writer.write(r),
    timeoutMs,
    timeScale: o.timeScale,
    signal,
    gate: budget,
    connections: o.connections,
    ...(writer.offloading ? { offload: writer } : {}),
  });
  const handles = factory.handles;
  // Fault schedules run beside the scenarios; a failing one is reported, never left running.
  const canFault = (s: FaultStep) => !o.faultProxies || o.faultProxies.includes(s.proxy);
  const runFaults = (all: readonly FaultStep[] | undefined, stop: AbortSignal, label: string, steps = all?.filter(canFault)): Promise<void> =>
    o.chaos && steps && steps.length > 0
      ? o.chaos.runSchedule(steps, stop).then(
          () => undefined,
          (err: unknown) => {
            const message = `fault schedule failed: ${(err as Error)?.message ?? String(err)}`;
            scenarioErrors.push({ scenario: label, message });
            log(`[${label}] ${message}`);
          },
        )
      : Promise.resolve();
  const runFaultsStop = new AbortController();
  const onRunStop = () => runFaultsStop.abort();
  signal.addEventListener('abort', onRunStop, { once: true });
  const extraFaults = runFaults(o.extraFaults, runFaultsStop.signal, 'faults');
  let current = '';
  const onDropped = (n: number) => {
    dropped += n;
    o.metrics?.addDropped(n);
    live.dropped(n, current);
  };

  for (const [index, scenario] of o.scenarios.entries()) {
    if (signal.aborted) break;
    factory.setScenario(scenario.name);
    current = scenario.name;
    live.scenario(scenario.name, index, o.scenarios.length);
    const random = seededRandom(scenarioSeed(o.seed, scenario.name));
    const ctx: ScenarioContext = {
      scenario: scenario.name,
      target: o.target,
      keys: handles,
      testKeys: handles.filter((h) => h.mode === 'test'),
      client: (key: KeyHandle) => factory.client(key),
      cards: o.cards,
      execute: async (spec: ExecutorSpec, iteration: IterationFn) => {
        const tStart = clock.now();
        const res = await runExecutor(spec, iteration, {
          clock,
          signal,
          onDropped,
          setIntended: (t) => factory.setIntended(t),
          backpressure: writer,
          onIterationError: (err) => log(`[${scenario.name}] iteration failed: ${(err as Error)?.message ?? String(err)}`),
        });
        // For the end record: the asked-for rate beside what was done ("achieved vs target" in the reports).
        load.push({ scenario: scenario.name, executor: spec.executor, targetRate: plannedRate(spec), iterations: res.iterations, dropped: res.dropped, tStart, tEnd: clock.now() });
        return res;
      },
      burst: (spec: BurstSpec) => runBurst(factory, spec, timeoutMs, (m: string) => log(`[${scenario.name}] ${m}`)),
      random,
      now: () => clock.now(),
      sleep: (ms: number) => abortableSleep(ms, signal),
      timeScale: o.timeScale,
      ...(o.durationMs !== undefined ? { durationMs: o.durationMs } : {}),
      ...(o.rate !== undefined ? { rate: o.rate } : {}),
      signal,
      log: (m: string) => log(`[${scenario.name}] ${m}`),
      webhooks: o.webhooks ?? null,
      ...(o.snapshot ? { snapshot: o.snapshot } : {}),
      ...(o.faultProxies ? { faultProxies: o.faultProxies } : {}),
      ...(o.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: o.upstreamTimeoutMs } : {}),
      ...(o.refundFailAmount !== undefined ? { refundFailAmount: o.refundFailAmount } : {}),
      ...(o.settleBoundMs !== undefined ? { settleBoundMs: o.settleBoundMs } : {}),
      phase: (note: string | null, ms?: number) => live.phase(note, ms),
    };
    const faultsStop = new AbortController();
    const onStop = () => faultsStop.abort();
    signal.addEventListener('abort', onStop, { once: true });
    const schedule = scenario.faults?.scheduleFor?.(faultRunInfo(o)) ?? scenario.faults?.schedule;
    const faults = runFaults(schedule, faultsStop.signal, scenario.name);
    let stoppedHere = false;
    try {
      await untilStoppedWithGrace(scenario.run(ctx), signal, timeoutMs + 2_000);
    } catch (err) {
      if (err instanceof RunStoppedError || signal.aborted) stoppedHere = true;
      else {
        const message = (err as Error)?.message ?? String(err);
        scenarioErrors.push({ scenario: scenario.name, message });
        log(`[${scenario.name}] scenario failed: ${(err as Error)?.stack ?? message}`);
      }
    } finally {
      // The scenario is over: close its fault windows now (their records say when).
      faultsStop.abort();
      signal.removeEventListener('abort', onStop);
      await faults;
    }
    if (stoppedHere) break;
  }
  runFaultsStop.abort();
  signal.removeEventListener('abort', onRunStop);
  await extraFaults;

  clearTimeout(durationCap);
  o.signal?.removeEventListener('abort', onExternalAbort);
  o.stop?.removeEventListener('abort', onStopAsked);
  await factory.close();
  if (o.beforeEnd) await o.beforeEnd().catch((err: unknown) => log(`stopping record sources before the end record failed: ${(err as Error)?.message ?? String(err)}`));
  const stopped = signal.aborted ? budget.stopReason : '';
  const complete = !stopped && scenarioErrors.length === 0;
  const reason = stopped || (scenarioErrors.length > 0 ? `scenario-error: ${scenarioErrors.map((e) => e.scenario).join(', ')}` : 'done');
  writer.write({ v: HISTORY_VERSION, kind: 'end', tEnd: clock.now(), wall: clock.wall(), complete, reason, requests: budget.requests, dropped, ...(load.length ? { load } : {}) });
  o.progress?.stop();
  for (const u of unsubscribe) u?.();
  return { complete, reason, requests: budget.requests, dropped, scenarioErrors };
}

/**
 * Awaits a scenario; once the run is stopped, waits at most `graceMs` more (for
 * requests in flight to end or time out) so a scenario stuck in a wait that
 * ignores the signal can never keep the run alive.
 */
function untilStoppedWithGrace(p: Promise<void>, signal: AbortSignal, graceMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let graceTimer: NodeJS.Timeout | null = null;
    const onAbort = () => {
      graceTimer = setTimeout(resolve, graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      () => {
        if (graceTimer) clearTimeout(graceTimer);
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (err) => {
        if (graceTimer) clearTimeout(graceTimer);
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
