/**
 * Keeping under each key's rate limit. One pacer per (target, key) is shared by every
 * scenario of the process, so scenarios running side by side share one budget: at most
 * `share × limit` requests start in any span of one window length. A sliding log is
 * stricter than the service's fixed window, so no fixed window sees more either.
 */
import { performance } from 'node:perf_hooks';
import type { KeyHandle, ScenarioContext } from '../../src/spec/scenario.ts';
import { LIMITS } from '../../src/spec/limits.ts';

/** Default share of each key's limit the non-rate-limit scenarios use together. */
export const DEFAULT_SHARE = 0.7;

export interface RateLimitInfo {
  limit: number;
  windowMs: number;
}

/** The target's limit and window as the engine learned them, or the spec's defaults. */
export function rateLimitOf(ctx: ScenarioContext): RateLimitInfo {
  const rl = ctx.target.rateLimit;
  return {
    limit: rl && rl.limit > 0 ? rl.limit : LIMITS.rateLimitPerWindow,
    windowMs: rl && rl.windowMs > 0 ? rl.windowMs : LIMITS.rateWindowMs,
  };
}

export class Pacer {
  private log: number[] = [];
  private head = 0;
  private waiters = 0;
  constructor(
    readonly budget: number,
    readonly windowMs: number,
  ) {}

  private prune(now: number): void {
    while (this.head < this.log.length && this.log[this.head] <= now - this.windowMs) this.head++;
    if (this.head > 1024 && this.head * 2 > this.log.length) {
      this.log = this.log.slice(this.head);
      this.head = 0;
    }
  }

  /** Requests started in the last window. */
  inWindow(): number {
    this.prune(performance.now());
    return this.log.length - this.head;
  }

  /** Waits until `n` more requests fit in the budget, then books them. */
  async acquire(n: number, signal?: AbortSignal): Promise<void> {
    const want = Math.max(1, Math.min(n, this.budget));
    this.waiters++;
    try {
      for (;;) {
        if (signal?.aborted) throw abortError();
        const now = performance.now();
        this.prune(now);
        const used = this.log.length - this.head;
        if (used + want <= this.budget) {
          for (let i = 0; i < want; i++) this.log.push(now);
          return;
        }
        // Sleep until enough of the oldest entries leave the window.
        const idx = this.head + Math.max(0, used + want - this.budget - 1);
        const wait = Math.max(1, this.log[idx] + this.windowMs - now + 1);
        await sleepAbortable(Math.min(wait, this.windowMs), signal);
      }
    } finally {
      this.waiters--;
    }
  }
}

const pacers = new Map<string, Pacer>();

/** The process-wide pacer of one key (budget = share × limit per window). */
export function pacerFor(ctx: ScenarioContext, key: KeyHandle, share = DEFAULT_SHARE): Pacer {
  const { limit, windowMs } = rateLimitOf(ctx);
  const budget = Math.max(1, Math.floor(limit * share));
  const id = `${ctx.target.url}|${key.label}|${key.index}|${budget}|${windowMs}`;
  let p = pacers.get(id);
  if (!p) {
    p = new Pacer(budget, windowMs);
    pacers.set(id, p);
  }
  return p;
}

export class AbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortError';
  }
}
export function abortError(): AbortedError {
  return new AbortedError();
}

/** Waiters per signal: one 'abort' listener per signal however many sleeps are pending. */
const waiters = new WeakMap<AbortSignal, Set<() => void>>();

export function sleepAbortable(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    let set: Set<() => void> | undefined;
    const onAbort = () => {
      clearTimeout(t);
      reject(abortError());
    };
    const t = setTimeout(() => {
      set?.delete(onAbort);
      resolve();
    }, Math.max(0, ms));
    if (signal) {
      set = waiters.get(signal);
      if (!set) {
        const s = new Set<() => void>();
        waiters.set(signal, s);
        signal.addEventListener(
          'abort',
          () => {
            for (const w of [...s]) w();
            s.clear();
          },
          { once: true },
        );
        set = s;
      }
      set.add(onAbort);
    }
  });
}
