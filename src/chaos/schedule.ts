/**
 * Runs a fault schedule on the clock: each step's window opens at `at` and closes
 * `duration` later; windows may overlap. What opening and closing means (adding a
 * toxic, disabling a proxy) is the session's business, passed in as hooks.
 */
import type { FaultStep, FaultType } from '../spec/index.ts';

/** Every toxic paystorm adds starts with this, so leftovers of a killed run are recognisable. */
export const TOXIC_PREFIX = 'paystorm_';

export function toxicName(n: number, type: FaultType): string {
  return `${TOXIC_PREFIX}${n}_${type}`;
}

export interface WindowHooks {
  /** Opens the window; resolves with the time it opened, from which `duration` counts. */
  open(step: FaultStep, index: number): Promise<number>;
  close(step: FaultStep, index: number): Promise<void>;
}

/** Resolves at run-monotonic time `t` (never before it), or at once when the signal aborts. */
export function sleepUntil(t: number, now: () => number, signal: AbortSignal): Promise<void> {
  if (t - now() <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout;
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    // Timers may fire a little early against the monotonic clock: re-arm for the rest.
    const arm = () => {
      const ms = t - now();
      if (ms <= 0) done();
      else timer = setTimeout(arm, Math.ceil(ms));
    };
    signal.addEventListener('abort', done, { once: true });
    arm();
  });
}

/**
 * Opens and closes every step's window. Aborting `signal` closes the open windows
 * at once and opens no more. When a hook throws, the other windows are closed and
 * the first error is rethrown.
 */
export async function runWindows(steps: readonly FaultStep[], hooks: WindowHooks, now: () => number, signal?: AbortSignal): Promise<void> {
  const t0 = now();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  if (signal?.aborted) stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let failure: { err: unknown } | null = null;

  const runOne = async (step: FaultStep, i: number) => {
    await sleepUntil(t0 + step.at, now, stop.signal);
    if (stop.signal.aborted) return;
    const opened = await hooks.open(step, i);
    try {
      await sleepUntil(opened + step.duration, now, stop.signal);
    } finally {
      await hooks.close(step, i);
    }
  };

  try {
    await Promise.all(
      steps.map((s, i) =>
        runOne(s, i).catch((err) => {
          failure ??= { err };
          stop.abort();
        }),
      ),
    );
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (failure) throw (failure as { err: unknown }).err;
}
