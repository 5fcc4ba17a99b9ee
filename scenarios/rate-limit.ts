/**
 * rate-limit: the fixed window, probed on a key no other scenario loads (the last test
 * key of the first merchant).
 *
 * 1. Learns the limit from `X-RateLimit-Limit` and waits for a fresh window (the first
 *    request then sees remaining = limit - 1: the window starts there, exact to one request).
 * 2. Window 1 (`rl-w1`): drives exactly the limit (lists plus a few unknown-id retrievals,
 *    so 4xx responses carry the headers too), then a few beyond it: 429s. Then another
 *    test key and a live key are shown unaffected (`rl-other-key`); each was used once before
 *    window 1 opened (`rl-other-key-pre`), so their windows are known to have opened in the run.
 * 3. Waits out the last 429's `Retry-After` and sends one request (`rl-retry-after`): it must
 *    pass (the wait was honest) and it opens window 2.
 * 4. Window 2 (`rl-w2`): exhausts it again, then probes finely around its expected end
 *    (`rl-edge`) until `X-RateLimit-Remaining` starts again: that request is the window's
 *    edge, exact to one probe, unlike the whole-second `X-RateLimit-Reset`. Window 2 ended one
 *    window length after it started although requests kept coming: the window is fixed.
 * 5. Window 3: bursts (autocannon) just before its end and just after it (`rl-burst`), so one
 *    window length holds the most a fixed window allows: at most twice the limit.
 *
 * Against a real 500/min deployment this takes four to five minutes; with a 2 s window, seconds.
 */
import type { ExchangeResult, KeyHandle, Scenario, ScenarioContext } from '../src/spec/scenario.ts';
import { RATE_HEADERS } from '../src/spec/limits.ts';
import { api, intHeader, nap, pool, step, unknownPaymentId, wallAt } from './lib/common.ts';
import { liveKeys, loadKeys, rateLimitKey, secondTestKey } from './lib/keys.ts';
import { rateLimitOf } from './lib/pace.ts';
import { retryAfterSlackMs } from '../src/spec/tolerances.ts';
import { declareRules } from './lib/rules.ts';

const { rules, rulesFor } = declareRules(
  ['RL-1', 'RL-2', 'RL-3', 'RL-4', 'RL-5', 'RL-6', 'RL-7', 'RL-8', 'ERR-1', 'ERR-2', 'PAY-17', 'LIST-1'],
  [{ rules: ['RL-9'], secondKey: true }],
);

/** Requests sent beyond the limit in a window (each must be 429). */
function overCount(limit: number): number {
  return Math.min(20, Math.max(3, Math.ceil(limit * 0.05)));
}

interface Window {
  /** Run-monotonic bounds of the request that opened it. */
  openStart: number;
  openEnd: number;
}

export class RateLimitProbe {
  limit: number;
  windowMs: number;
  readonly client;
  private n = 0;
  constructor(
    readonly ctx: ScenarioContext,
    readonly key: KeyHandle,
  ) {
    const rl = rateLimitOf(ctx);
    this.limit = rl.limit;
    this.windowMs = rl.windowMs;
    this.client = ctx.client(key);
  }

  /** One counted request: mostly a one-item list, every tenth an unknown-id retrieval (404). */
  send(group: string): Promise<ExchangeResult> {
    const i = this.n++;
    return i % 10 === 9 ? this.client.retrieve(unknownPaymentId(), { group, unknownId: true }) : this.client.list({ limit: 1 }, { group });
  }

  remaining(r: ExchangeResult): number | null {
    return r.record.rate?.remaining ?? intHeader(r, RATE_HEADERS.remaining);
  }

  learnLimit(r: ExchangeResult): void {
    const l = r.record.rate?.limit ?? intHeader(r, RATE_HEADERS.limit);
    if (l && l > 0 && l !== this.limit) {
      this.ctx.log(`rate-limit: X-RateLimit-Limit is ${l} (engine said ${this.limit})`);
      this.limit = l;
    }
  }

  /**
   * Estimates the window length from the `X-RateLimit-Reset` of the request that opened a
   * window (whole seconds, so within a second) and adopts it when the assumed one is off by more.
   */
  learnWindowFromReset(opener: ExchangeResult): void {
    const reset = opener.record.rate?.reset ?? intHeader(opener, RATE_HEADERS.reset);
    if (!reset) return;
    // Against the answer's own Date (the server's clock, like the reset): a host whose clock is
    // off would otherwise look like another window length.
    const date = opener.record.date;
    const est = date !== undefined ? (reset - date) * 1000 : reset * 1000 - opener.record.wall;
    if (est > 0 && Math.abs(est - this.windowMs) > 1500) {
      const w = Math.max(1000, Math.round(est / 1000) * 1000);
      this.ctx.log(`rate-limit: X-RateLimit-Reset says the window is about ${w} ms, not ${this.windowMs} ms`);
      this.windowMs = w;
    }
  }

  /** Ms until the window of `r` is over for sure (its whole-second reset plus a second), bounded by one window. */
  untilReset(r: ExchangeResult): number {
    const reset = r.record.rate?.reset ?? intHeader(r, RATE_HEADERS.reset);
    const ra = r.record.retryAfter ?? intHeader(r, RATE_HEADERS.retryAfter);
    if (r.status === 429 && ra !== null && ra !== undefined) return ra * 1000 + 50;
    if (reset) {
      // In the server's time when the answer carried a Date (whole seconds: one more second of margin).
      const left = r.record.date !== undefined ? (reset - r.record.date + 1) * 1000 - (Date.now() - r.record.wall) : reset * 1000 - Date.now();
      return Math.min(this.windowMs + 1000, Math.max(0, left + 1000));
    }
    return this.windowMs + 50;
  }

  /**
   * Waits for and opens a fresh window: the returned request saw remaining = limit - 1 and
   * opened it. Its probes are in `rl-fresh`, not in the window's own group.
   */
  async freshWindow(): Promise<{ w: Window; first: ExchangeResult } | null> {
    const group = 'rl-fresh';
    for (let attempt = 0; attempt < 3 && !this.ctx.signal.aborted; attempt++) {
      const r = await this.send(group);
      this.learnLimit(r);
      if (r.status !== 429 && this.remaining(r) === this.limit - 1) return { w: { openStart: r.record.tStart, openEnd: r.record.tEnd }, first: r };
      const wait = this.untilReset(r);
      this.ctx.log(`rate-limit: window not fresh (status ${r.status}, remaining ${this.remaining(r)}); waiting ${Math.round(wait)} ms`);
      this.ctx.phase?.('waiting for the rate window to reset', wait);
      await nap(this.ctx, wait);
    }
    return null;
  }

  /** Waits (bounded) until a request is answered with room left in its window. */
  async leaveRoom(group: string): Promise<void> {
    await nap(this.ctx, this.windowMs / 2);
    for (let i = 0; i < 4 && !this.ctx.signal.aborted; i++) {
      const r = await this.send(group);
      const rem = this.remaining(r);
      if (r.status !== 429 && (rem === null || rem >= this.limit / 2)) return;
      await nap(this.ctx, this.untilReset(r));
    }
  }

  /** Sends `count` counted requests as fast as `concurrency` allows. */
  async drive(count: number, group: string, concurrency: number): Promise<ExchangeResult[]> {
    const res = await pool(this.ctx, Array.from({ length: Math.max(0, count) }), concurrency, () => this.send(group));
    return res.filter((r): r is ExchangeResult => !!r);
  }

  /** Sends requests one at a time until one is refused; at most `max`. */
  async untilRefused(group: string, max: number): Promise<ExchangeResult | null> {
    for (let i = 0; i < max && !this.ctx.signal.aborted; i++) {
      const r = await this.send(group);
      if (r.status === 429) return r;
    }
    return null;
  }
}

/**
 * How long the probe takes, for the run's plan (src/cli/plan.ts): window 1 from its opening
 * request, the Retry-After wait into window 2, window 2 until its edge, window 3 until the bursts
 * across its end: three window lengths, plus driving the limit twice at the probe's concurrency,
 * the bursts, and half a window more when the next scenarios load this key too. A key whose window
 * a previous run left in use adds up to one window (not counted).
 */
export function rateLimitProbeMs(ctx: ScenarioContext, rttMs: number): { ms: number; windows: number } {
  const { limit, windowMs } = rateLimitOf(ctx);
  const concurrency = Math.max(1, Math.min(8, limit));
  const drive = (limit / concurrency + overCount(limit)) * rttMs;
  const burst = (Math.min(2000, limit + Math.ceil(limit / 4)) / Math.max(1, Math.min(50, limit))) * rttMs;
  const key = rateLimitKey(ctx);
  const leave = key && loadKeys(ctx).includes(key) ? windowMs / 2 : 0;
  return { ms: 3 * windowMs + 2 * drive + burst + Math.max(20, 0.02 * windowMs) + leave, windows: 3 };
}

/** The keys shown unaffected while the rate-limit key is exhausted: the second test key and a live key. */
function otherKeysOf(ctx: ScenarioContext, rlKey: KeyHandle): KeyHandle[] {
  const others: KeyHandle[] = [];
  const second = secondTestKey(ctx, rlKey);
  if (second) others.push(second);
  const live = liveKeys(ctx).find((k) => k !== rlKey);
  if (live) others.push(live);
  return others;
}

/**
 * One ordinary request on each of the other keys before the rate-limit key's window opens
 * (`rl-other-key-pre`): their first request of the run then comes before the exhaustion, so a
 * window they share with it (one counter per merchant) is known to have opened during the run and
 * RL-9 judges it, instead of skipping it as a window that may have opened before the run.
 */
async function otherKeysFirstUse(ctx: ScenarioContext, rlKey: KeyHandle): Promise<void> {
  for (const k of otherKeysOf(ctx, rlKey)) await api(ctx, k).list({ limit: 1 }, { group: 'rl-other-key-pre' });
}

async function otherKeysUnaffected(ctx: ScenarioContext, rlKey: KeyHandle): Promise<void> {
  for (const k of otherKeysOf(ctx, rlKey)) {
    const a = api(ctx, k);
    for (let i = 0; i < 2; i++) {
      const r = await a.list({ limit: 1 }, { group: 'rl-other-key' });
      if (r.status === 429) ctx.log(`rate-limit: ${k.label} got 429 while ${rlKey.label} was exhausted`);
    }
  }
}

async function run(ctx: ScenarioContext): Promise<void> {
  const key = rateLimitKey(ctx);
  if (!key) {
    ctx.log('rate-limit: no test key; skipping');
    return;
  }
  const p = new RateLimitProbe(ctx, key);
  const concurrency = Math.max(1, Math.min(8, p.limit));

  // 1-2. Window 1: exactly the limit, then beyond it (the other keys used once before it opens).
  await step(ctx, 'other keys first use', () => otherKeysFirstUse(ctx, key));
  const w1 = await p.freshWindow();
  if (!w1) {
    ctx.log('rate-limit: could not open a fresh window; the key is shared with other traffic');
  }
  if (w1) p.learnWindowFromReset(w1.first);
  const firstRem = w1 ? p.remaining(w1.first) ?? p.limit - 1 : p.limit - 1;
  const inWindow = await p.drive(firstRem, 'rl-w1', concurrency);
  const refused1 = inWindow.filter((r) => r.status === 429).length;
  if (refused1 > 0) ctx.log(`rate-limit: ${refused1} of the limit's requests in window 1 were refused`);
  const over1 = await p.drive(overCount(p.limit), 'rl-w1', 1);
  const last429 = [...over1].reverse().find((r) => r.status === 429) ?? null;
  if (w1 && ctx.now() - w1.w.openStart > p.windowMs) ctx.log('rate-limit: driving the limit took longer than one window; the target is slow for this limit');
  await step(ctx, 'second key', () => otherKeysUnaffected(ctx, key));

  // 3. Retry-After is honest.
  let w2start: ExchangeResult | null = null;
  if (last429) {
    const ra = last429.record.retryAfter ?? intHeader(last429, RATE_HEADERS.retryAfter) ?? 0;
    // Past the oracle's clock slack (RL-8, retry-after-honest), so a Retry-After that understates
    // the wait (0, say) is judged; an honest one has the window reset by then anyway.
    const due = last429.record.tEnd + ra * 1000 + retryAfterSlackMs(ctx.target.embedded) + 50;
    ctx.phase?.(`waiting out Retry-After (${ra} s) before one request`, due - ctx.now());
    await nap(ctx, due - ctx.now());
    const r = await p.send('rl-retry-after');
    if (r.status === 429) {
      ctx.log(`rate-limit: refused after waiting Retry-After ${ra} s`);
      const f = await p.freshWindow();
      w2start = f ? f.first : null;
    } else {
      w2start = r;
    }
  } else {
    ctx.log('rate-limit: no 429 beyond the limit; waiting one window');
    ctx.phase?.('waiting one rate window', p.windowMs + 1000);
    await nap(ctx, p.windowMs + 1000);
    const f = await p.freshWindow();
    w2start = f ? f.first : null;
  }
  if (!w2start || ctx.signal.aborted) return;

  // 4. Window 2: exhaust, then find its end exactly by probing.
  const rem2 = p.remaining(w2start) ?? p.limit - 1;
  await p.drive(rem2, 'rl-w2', concurrency);
  const refused2 = await p.untilRefused('rl-w2', overCount(p.limit));
  const ra2 = refused2 ? refused2.record.retryAfter ?? intHeader(refused2, RATE_HEADERS.retryAfter) : null;
  const stepMs = Math.min(250, Math.max(10, p.windowMs / 100));
  const expectedEnd = w2start.record.tStart + p.windowMs;
  const raEarliest = refused2 && ra2 !== null ? refused2.record.tStart + (ra2 - 1) * 1000 : expectedEnd;
  const probeFrom = Math.min(expectedEnd, raEarliest) - Math.max(4 * stepMs, 100);
  ctx.phase?.('waiting for the end of rate window 2, then probing its edge', probeFrom - ctx.now());
  await nap(ctx, probeFrom - ctx.now());
  const raLatest = refused2 && ra2 !== null ? refused2.record.tEnd + ra2 * 1000 : expectedEnd;
  const maxProbes = Math.min(2000, Math.ceil((Math.max(expectedEnd, raLatest) - probeFrom + 3000) / stepMs));
  let edge: ExchangeResult | null = null;
  for (let i = 0; i < maxProbes && !ctx.signal.aborted; i++) {
    const t = ctx.now();
    const r = await p.send('rl-edge');
    if (r.status !== 429) {
      edge = r;
      break;
    }
    await nap(ctx, stepMs - (ctx.now() - t));
  }
  if (!edge) {
    ctx.log('rate-limit: window 2 never ended within the probe budget');
    return;
  }
  const measured = edge.record.tStart - w2start.record.tEnd;
  const measuredMax = edge.record.tEnd - w2start.record.tStart;
  ctx.log(`rate-limit: window edge found ${Math.round(measured)}-${Math.round(measuredMax)} ms after window 2 opened (window ${p.windowMs} ms, probe step ${stepMs} ms)`);
  // The measured length wins over an assumed one for the bursts (the spec's windows are whole seconds).
  const measuredWindow = Math.round(measured / 1000) * 1000;
  if (measuredWindow >= 1000 && Math.abs(measuredWindow - p.windowMs) > stepMs + 100) {
    ctx.log(`rate-limit: the window is ${measuredWindow} ms, not ${p.windowMs} ms`);
    p.windowMs = measuredWindow;
  }

  // 5. Bursts across the end of window 3 (opened by the edge probe).
  const w3end = edge.record.tEnd + p.windowMs;
  const amount = Math.min(2000, p.limit + Math.ceil(p.limit / 4));
  const connections = Math.max(1, Math.min(50, p.limit));
  const before = edge.record.tEnd + 0.6 * p.windowMs;
  const after = w3end + Math.max(20, 0.02 * p.windowMs);
  ctx.phase?.('waiting to burst across the end of rate window 3', after - ctx.now());
  const [b1, b2] = await Promise.all([
    ctx.burst({ key, amount, connections, method: 'GET', path: '/v1/payments?limit=1', startAtWall: wallAt(ctx, before), group: 'rl-burst' }),
    ctx.burst({ key, amount, connections, method: 'GET', path: '/v1/payments?limit=1', startAtWall: wallAt(ctx, after), group: 'rl-burst' }),
  ]);
  const ok = (s: Record<number, number>) => Object.entries(s).reduce((n, [k, v]) => n + (Number(k) !== 429 ? v : 0), 0);
  ctx.log(`rate-limit: bursts across the boundary: ${ok(b1.statuses)} + ${ok(b2.statuses)} passed of ${b1.sent + b2.sent} (limit ${p.limit})`);
  // With a single test key the next scenarios load this key too: leave it in a window with room.
  if (loadKeys(ctx).includes(key)) await p.leaveRoom('rl-leave');
}

const scenario: Scenario = {
  name: 'rate-limit',
  description: 'Fixed-window rate limit: exact window edges, the limit then 429s, every header, honest Retry-After, bursts across a boundary, a second key unaffected',
  rules,
  rulesFor,
  thresholds: ['http_req_failed: rate<0.01'],
  defaultSuite: true,
  run,
};
export default scenario;
