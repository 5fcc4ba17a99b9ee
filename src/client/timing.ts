/** The run's clock as the client reads it, and the client's sleeps. */

/** Any run clock: monotonic run ms and epoch ms. */
export interface Clock {
  now(): number;
  wall(): number;
}

/** Times are kept to the microsecond: finer digits are noise, and shorter numbers serialize faster. */
export function roundUs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Sleeps `ms`, ending early (resolving) when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
