/**
 * The service's wall clock: what it reports as "now" (the Date header, X-RateLimit-Reset,
 * created and *_at timestamps, webhook `t` and `created_at`). `offsetMs` sets it apart from
 * the machine's clock, as on a staging host whose clock is a few seconds off (the
 * server-clock-ahead/-behind variants). Durations (timers, backoffs) never use it.
 */
export interface ServiceClock {
  readonly offsetMs: number;
  /** Epoch ms. */
  now(): number;
  /** Unix seconds (floor). */
  seconds(): number;
  /** An HTTP Date header value. */
  httpDate(): string;
}

export function serviceClock(offsetMs = 0): ServiceClock {
  return {
    offsetMs,
    now: () => Date.now() + offsetMs,
    seconds: () => Math.floor((Date.now() + offsetMs) / 1000),
    httpDate: () => new Date(Date.now() + offsetMs).toUTCString(),
  };
}

export const SYSTEM_CLOCK: ServiceClock = serviceClock(0);
