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
    // rl-window-restarts-early: the counter restarts after a third of the window; the headers still announce all of it.
    const restartAfter = this.bugs['rl-window-restarts-early'] ? Math.ceil(this.windowMs / 3) : this.windowMs;
    if (!w || now >= w.start + restartAfter) {
      w = { start: now, count: 0 };
      this.windows.set(counterKey, w);
    }
    const end = w.start + this.windowMs;
    const cap = this.capOf();
    const allowed = w.count < cap;
    if (allowed || this.bugs['rl-remaining-negative']) w.count++;
    let remaining = this.bugs['rl-remaining-negative'] ? this.limit - w.count : Math.max(0, this.limit - w.count);
    // The under-admitting bugs still say remaining 0 on their 429s (they break RL-1, not RL-7).
    if (!allowed && cap < this.limit) remaining = 0;
    const resetMs = this.bugs['rl-reset-moves'] ? now + this.windowMs : end;
    return { allowed, limit: this.limit, remaining, reset: Math.ceil(resetMs / 1000), retryAfter: Math.max(1, Math.ceil((end - now) / 1000)) };
  }

  /** Requests a window admits: the limit, unless a seeded bug moves it. */
  private capOf(): number {
    if (this.bugs['rl-off-by-one']) return this.limit + 1;
    if (this.bugs['rl-early-429']) return this.limit - 1;
    if (this.bugs['rl-limit-below-header']) return Math.max(1, this.limit - Math.ceil(this.limit / 10));
    return this.limit;
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
