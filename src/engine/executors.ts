/**
 * Executors: how iterations are scheduled, given as data in a scenario.
 *
 * Open model (constant-arrival-rate, ramping-arrival-rate): iterations start on
 * a schedule whatever the latency. Each has an intended start; one that starts
 * late is still measured from it (its first request's `tIntended`), so latency is
 * corrected for coordinated omission. An iteration due while `maxInFlight` are
 * running, or while the history is draining to disk, is dropped and counted.
 *
 * Closed model (constant-vus, per-vu-iterations): N virtual users each loop,
 * starting the next iteration when the last one ends.
 *
 * Every executor stops by itself: at its own end, or when the run's signal
 * aborts (a cap or an interrupt); iterations in flight are awaited.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ExecutorResult, ExecutorSpec } from '../spec/index.ts';
import { RunStoppedError } from '../client/index.ts';

export type IterationFn = (vu: number, i: number, tIntended: number) => Promise<void>;

export interface ExecutorEnv {
  clock: { now(): number };
  /** Aborted when the run stops (cap or interrupt). A reason starting with `cap` means a cap. */
  signal: AbortSignal;
  onDropped?: (n: number) => void;
  /** Announces the intended start of the iteration about to be called (see ClientFactory.setIntended). */
  setIntended?: (t: number | undefined) => void;
  /** History back-pressure: closed-model VUs wait on it; open-model iterations due meanwhile are dropped. */
  backpressure?: { readonly needsDrain: boolean; drained(): Promise<void> };
  onIterationError?: (err: unknown) => void;
}

export class ExecutorSpecError extends Error {}

function positive(name: string, v: number, allowZero = false): void {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (!allowZero && v === 0)) {
    throw new ExecutorSpecError(`executor: ${name} must be a ${allowZero ? 'non-negative' : 'positive'} finite number, got ${String(v)}`);
  }
}

export function validateExecutorSpec(spec: ExecutorSpec): void {
  switch (spec.executor) {
    case 'constant-arrival-rate':
      positive('rate', spec.rate);
      positive('durationMs', spec.durationMs);
      positive('maxInFlight', spec.maxInFlight);
      return;
    case 'ramping-arrival-rate':
      positive('startRate', spec.startRate, true);
      positive('maxInFlight', spec.maxInFlight);
      if (!Array.isArray(spec.stages) || spec.stages.length === 0) throw new ExecutorSpecError('executor: ramping-arrival-rate needs at least one stage');
      for (const s of spec.stages) {
        positive('stage target', s.target, true);
        positive('stage durationMs', s.durationMs);
      }
      return;
    case 'constant-vus':
      positive('vus', spec.vus);
      positive('durationMs', spec.durationMs);
      return;
    case 'per-vu-iterations':
      positive('vus', spec.vus);
      positive('iterations', spec.iterations, true);
      positive('maxDurationMs', spec.maxDurationMs);
      return;
    default:
      throw new ExecutorSpecError(`executor: unknown executor ${(spec as { executor: string }).executor}`);
  }
}

/**
 * Offsets (ms from the executor's start) at which open-model iterations are due.
 * Iteration n is due when the integral of the rate reaches n; null past the end.
 */
export function arrivalSchedule(spec: ExecutorSpec & { executor: 'constant-arrival-rate' | 'ramping-arrival-rate' }): (n: number) => number | null {
  if (spec.executor === 'constant-arrival-rate') {
    const perMs = spec.rate / 1000;
    return (n) => {
      const t = n / perMs;
      return t < spec.durationMs ? t : null;
    };
  }
  // Stages as [start ms, duration ms, r0, r1 (per s), iterations before the stage].
  const stages: { t0: number; d: number; r0: number; r1: number; n0: number; n1: number }[] = [];
  let t0 = 0;
  let n0 = 0;
  let r0 = spec.startRate;
  for (const s of spec.stages) {
    const n1 = n0 + ((r0 + s.target) / 2) * (s.durationMs / 1000);
    stages.push({ t0, d: s.durationMs, r0, r1: s.target, n0, n1 });
    t0 += s.durationMs;
    n0 = n1;
    r0 = s.target;
  }
  let k = 0;
  return (n) => {
    // n only grows, so the stage pointer only moves forward.
    while (k < stages.length && n >= stages[k].n1) k++;
    if (k >= stages.length) return null;
    const st = stages[k];
    const m = n - st.n0;
    const ds = st.d / 1000;
    const a = (st.r1 - st.r0) / (2 * ds);
    // Solve r0*τ + a*τ² = m in a form that is stable for a → 0 and for a < 0.
    const tau = m === 0 ? 0 : (2 * m) / (st.r0 + Math.sqrt(Math.max(0, st.r0 * st.r0 + 4 * a * m)));
    return st.t0 + tau * 1000;
  };
}

function stoppedBy(signal: AbortSignal): ExecutorResult['stoppedBy'] {
  const r = signal.reason;
  return typeof r === 'string' && r.startsWith('cap') ? 'cap' : 'abort';
}

export async function runExecutor(spec: ExecutorSpec, iteration: IterationFn, env: ExecutorEnv): Promise<ExecutorResult> {
  validateExecutorSpec(spec);
  switch (spec.executor) {
    case 'constant-arrival-rate':
    case 'ramping-arrival-rate':
      return openModel(spec, iteration, env);
    case 'constant-vus':
      return closedModel(spec.vus, Infinity, spec.durationMs, iteration, env);
    case 'per-vu-iterations':
      return closedModel(spec.vus, spec.iterations, spec.maxDurationMs, iteration, env);
  }
}

async function closedModel(vus: number, iterationsPerVu: number, durationMs: number, iteration: IterationFn, env: ExecutorEnv): Promise<ExecutorResult> {
  const { clock, signal } = env;
  const end = clock.now() + durationMs;
  let iterations = 0;
  let errors = 0;
  let stopped = false;
  const vu = async (n: number) => {
    for (let i = 0; i < iterationsPerVu; i++) {
      if (signal.aborted || stopped || clock.now() >= end) return;
      if (env.backpressure?.needsDrain) await env.backpressure.drained();
      const tIntended = clock.now();
      try {
        await iteration(n, i, tIntended);
      } catch (err) {
        if (err instanceof RunStoppedError) {
          stopped = true;
          return;
        }
        errors++;
        env.onIterationError?.(err);
      }
      iterations++;
      // An iteration that never waits on I/O must not starve timers (caps, progress).
      if ((i & 1023) === 1023) await yieldToLoop();
    }
  };
  await Promise.all(Array.from({ length: vus }, (_, n) => vu(n)));
  return { iterations, dropped: 0, errors, stoppedBy: signal.aborted ? stoppedBy(signal) : 'done' };
}

function openModel(spec: ExecutorSpec & { executor: 'constant-arrival-rate' | 'ramping-arrival-rate' }, iteration: IterationFn, env: ExecutorEnv): Promise<ExecutorResult> {
  const { clock, signal } = env;
  const due = arrivalSchedule(spec);
  const t0 = clock.now();
  const free: number[] = [];
  for (let s = spec.maxInFlight - 1; s >= 0; s--) free.push(s);
  let inFlight = 0;
  let iterations = 0;
  let errors = 0;
  let dropped = 0;
  let n = 0;
  let next = due(0);
  let scheduling = true;
  let timer: NodeJS.Timeout | null = null;

  return new Promise((resolve) => {
    const finishIfIdle = () => {
      if (!scheduling && inFlight === 0) {
        signal.removeEventListener('abort', onAbort);
        resolve({ iterations, dropped, errors, stoppedBy: signal.aborted ? stoppedBy(signal) : 'done' });
      }
    };
    const stopScheduling = () => {
      scheduling = false;
      if (timer) clearTimeout(timer);
      timer = null;
      finishIfIdle();
    };
    const onAbort = () => stopScheduling();
    signal.addEventListener('abort', onAbort, { once: true });

    const settle = (slot: number, err: unknown) => {
      if (err !== undefined) {
        if (err instanceof RunStoppedError) stopScheduling();
        else {
          errors++;
          env.onIterationError?.(err);
        }
      }
      iterations++;
      inFlight--;
      free.push(slot);
      finishIfIdle();
    };

    const start = (i: number, tIntended: number) => {
      const slot = free.pop()!;
      inFlight++;
      let p: Promise<void>;
      env.setIntended?.(tIntended);
      try {
        p = iteration(slot, i, tIntended);
      } catch (err) {
        p = Promise.reject(err);
      } finally {
        env.setIntended?.(undefined);
      }
      p.then(
        () => settle(slot, undefined),
        (err) => settle(slot, err ?? new Error('iteration rejected')),
      );
    };

    const tick = () => {
      timer = null;
      if (!scheduling) return;
      const now = clock.now();
      let droppedNow = 0;
      const draining = env.backpressure?.needsDrain === true;
      // Start everything that is due (a late tick catches up; each keeps its own intended start).
      while (next !== null && t0 + next <= now && scheduling) {
        if (inFlight >= spec.maxInFlight || draining) droppedNow++;
        else start(n, t0 + next);
        n++;
        next = due(n);
      }
      if (droppedNow > 0) {
        dropped += droppedNow;
        env.onDropped?.(droppedNow);
      }
      if (next === null || signal.aborted) {
        stopScheduling();
        return;
      }
      if (!scheduling) return;
      timer = setTimeout(tick, Math.max(0, Math.floor(t0 + next - clock.now())));
    };
    if (signal.aborted) stopScheduling();
    else tick();
  });
}
