/**
 * Fixed-window limiter per API key (spec "Limits"): a window starts at the key's
 * first request and resets at the first request after windowMs. Refused
 * requests are not counted. Seeded bugs change the counting here.
 */
import type { BugFlags } from './bugs.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the window ends (ceil). */
  reset: number;
  /** Whole seconds until the window ends (ceil, at least 1); only meaningful when refused. */
  retryAfter: number;
}

interface Window {
  start: number;
  count: number;
  /** Only for the sliding-window bug: admitted request times. */
  log?: number[];
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly bugs: BugFlags,
  ) {}

  take(counterKey: string, now = Date.now()): RateDecision {
    if (this.bugs['rl-sliding-window']) return this.takeSliding(counterKey, now);
    let w = this.windows.get(counterKey);
    if (!w || now >= w.start + this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(counterKey, w);
    }
    const end = w.start + this.windowMs;
    const cap = this.bugs['rl-off-by-one'] ? this.limit + 1 : this.limit;
    const allowed = w.count < cap;
    if (allowed || this.bugs['rl-remaining-negative']) w.count++;
    const remaining = this.bugs['rl-remaining-negative'] ? this.limit - w.count : Math.max(0, this.limit - w.count);
    const resetMs = this.bugs['rl-reset-moves'] ? now + this.windowMs : end;
    return { allowed, limit: this.limit, remaining, reset: Math.ceil(resetMs / 1000), retryAfter: Math.max(1, Math.ceil((end - now) / 1000)) };
  }

  private takeSliding(counterKey: string, now: number): RateDecision {
    let w = this.windows.get(counterKey);
    if (!w) {
      w = { start: now, count: 0, log: [] };
      this.windows.set(counterKey, w);
    }
    const log = w.log!;
    while (log.length && log[0] <= now - this.windowMs) log.shift();
    const allowed = log.length < this.limit;
    if (allowed) log.push(now);
    const end = (log[0] ?? now) + this.windowMs;
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - log.length),
      reset: Math.ceil(end / 1000),
      retryAfter: Math.max(1, Math.ceil((end - now) / 1000)),
    };
  }
}
