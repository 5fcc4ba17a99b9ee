/** The spec's client retry policy: what to retry, and how long to wait before the next attempt. */
import { LIMITS } from '../spec/index.ts';
import { type ExchangeRecord } from '../history/index.ts';

/** Retry back-off for attempt n (0-based): 1 s doubling to 30 s, scaled, at least 20 ms. */
export function retryBackoffMs(attempt: number, timeScale: number): number {
  const base = Math.min(LIMITS.retryBackoffMaxMs, LIMITS.retryBackoffStartMs * 2 ** attempt);
  return Math.max(20, base * timeScale);
}

/** The spec's client rule: retry on api_error and 503 (and when no answer came); never on 429 or other 4xx. */
export function isRetryable(r: ExchangeRecord): boolean {
  // Aborted by paystorm closing its client: a retry could not be sent either.
  if (r.failure === 'aborted') return false;
  if (r.failure !== null) return true;
  if (r.status === 503 || r.status === 500) return true;
  return r.error?.type === 'api_error';
}
