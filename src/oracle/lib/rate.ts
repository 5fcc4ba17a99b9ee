/** Per-key rate-limit samples (ledger.rate) grouped the way the rate rules need them. */
import { LIMITS, type Evidence } from '../../spec/index.ts';
import { sortRows, type Columns } from './columns.ts';
import type { RateColumn } from '../ledger.ts';
import type { OracleContext } from '../types.ts';

export type RateCols = Columns<RateColumn>;

export function windowMsOf(ctx: OracleContext): number {
  return ctx.rateLimit?.windowMs ?? LIMITS.rateWindowMs;
}

/**
 * The server's clock offset from ours (ms, positive when it is ahead) estimated from the Date
 * headers, and its uncertainty; 0 and 0 when no answer carried a Date header. Final in finish().
 */
export function serverOffsetOf(ctx: OracleContext): { offsetMs: number; uncertaintyMs: number } {
  const e = ctx.ledger.serverClock.estimate();
  return e ? { offsetMs: e.offsetMs, uncertaintyMs: e.uncertaintyMs } : { offsetMs: 0, uncertaintyMs: 0 };
}

/**
 * Epoch ms on the server's clock at run time `t`: server times (X-RateLimit-Reset, created,
 * webhook t) are judged in the server's time, so a host whose clock is off keeps its rules.
 */
export function serverEpochMs(ctx: OracleContext, t: number): number {
  return ctx.epochMs(t) + serverOffsetOf(ctx).offsetMs;
}

/**
 * Clock skew the Date-header estimate cannot see: a remote target's nodes, a clock stepping
 * (1 s), or the embedded target's own timers (100 ms).
 */
export function residualSkewMs(ctx: OracleContext): number {
  return ctx.run?.target.embedded ? 100 : 1000;
}

/**
 * Tolerance when a server time in whole seconds (X-RateLimit-Reset, a webhook signature's t) is
 * compared with our clock moved into the server's time: a second of rounding, the offset
 * estimate's uncertainty, plus the residual skew.
 */
export function resetToleranceMs(ctx: OracleContext): number {
  return 1000 + residualSkewMs(ctx) + serverOffsetOf(ctx).uncertaintyMs;
}

// Keyed by table and checked against its length and generation: a table is refilled with another key's rows (ledger.rateTables).
const groupCache = new WeakMap<RateCols, { length: number; generation: number; groups: Map<number, Uint32Array> }>();
const orderCache = new WeakMap<RateCols, Map<string, { length: number; generation: number; order: Uint32Array }>>();
const bufferCache = new WeakMap<RateCols, Map<string, Uint32Array>>();

/**
 * `n` numbers of the table's array for `purpose` (an order, the groups, a sort's scratch), made
 * larger only when a key has more rows. What a key's rows give is computed into the same arrays
 * the previous key's used: the ledger reuses one table for every key and rule, and arrays made
 * anew per key and rule were freed only some time after the next were made (docs/oracle.md,
 * Memory). Valid until the table is refilled, as the caches here are.
 */
function bufferOf(c: RateCols, purpose: string, n: number): Uint32Array {
  let m = bufferCache.get(c);
  if (!m) bufferCache.set(c, (m = new Map()));
  let b = m.get(purpose);
  if (!b || b.length < n) m.set(purpose, (b = new Uint32Array(Math.max(n, b ? b.length : 0))));
  return b.subarray(0, n);
}

/** Row indices sorted by a column, ties by row index (computed once per key and column). */
export function orderBy(c: RateCols, col: RateColumn): Uint32Array {
  let m = orderCache.get(c);
  if (!m) orderCache.set(c, (m = new Map()));
  const hit = m.get(col);
  if (hit && hit.length === c.length && hit.generation === c.generation) return hit.order;
  const order = bufferOf(c, `order ${col}`, c.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  sortRows(order, c.col(col), bufferOf(c, 'sort scratch', c.length));
  m.set(col, { length: c.length, generation: c.generation, order });
  return order;
}

/** The counted rows (answered, not 429: isCounted) in start order, in an array reused from key to key. */
export function countedByStart(c: RateCols): Uint32Array {
  const byStart = orderBy(c, 'tStart');
  let n = 0;
  for (let k = 0; k < byStart.length; k++) if (isCounted(c, byStart[k])) n++;
  const out = bufferOf(c, 'counted', n);
  n = 0;
  for (let k = 0; k < byStart.length; k++) if (isCounted(c, byStart[k])) out[n++] = byStart[k];
  return out;
}

/**
 * Row indices by X-RateLimit-Reset value: the server's own statement of which window counted
 * each request. Groups come in the order of their first request, each group's rows in start
 * order. Computed once per key; the groups are views of one typed array (a soak's key has millions
 * of rows: a plain array a window would hold them all again in the heap).
 */
export function groupByReset(c: RateCols): Map<number, Uint32Array> {
  const hit = groupCache.get(c);
  if (hit && hit.length === c.length && hit.generation === c.generation) return hit.groups;
  const reset = c.col('reset');
  const byStart = orderBy(c, 'tStart');
  const sizes = new Map<number, number>();
  let placed = 0;
  for (let k = 0; k < byStart.length; k++) {
    const r = reset[byStart[k]];
    if (Number.isNaN(r)) continue;
    sizes.set(r, (sizes.get(r) ?? 0) + 1);
    placed++;
  }
  const all = bufferOf(c, 'groups', placed);
  const groups = new Map<number, Uint32Array>();
  const next = new Map<number, number>();
  let at = 0;
  for (const [r, n] of sizes) {
    groups.set(r, all.subarray(at, at + n));
    next.set(r, at);
    at += n;
  }
  for (let k = 0; k < byStart.length; k++) {
    const i = byStart[k];
    const r = reset[i];
    if (Number.isNaN(r)) continue;
    const to = next.get(r)!;
    all[to] = i;
    next.set(r, to + 1);
  }
  groupCache.set(c, { length: c.length, generation: c.generation, groups });
  return groups;
}

/** Rows that may have been counted without saying in which window: no answer, or no reset header. */
export function unplacedRows(c: RateCols): Uint32Array {
  const reset = c.col('reset');
  const status = c.col('status');
  let n = 0;
  for (let i = 0; i < c.length; i++) if (Number.isNaN(reset[i]) || status[i] === 0) n++;
  const out = new Uint32Array(n);
  n = 0;
  for (let i = 0; i < c.length; i++) if (Number.isNaN(reset[i]) || status[i] === 0) out[n++] = i;
  return out;
}

/** The limit in effect: the largest X-RateLimit-Limit among the rows, else what the run learned. */
export function limitOf(c: RateCols, rows: ArrayLike<number> & Iterable<number>, ctx: OracleContext): number | undefined {
  const lim = c.col('limit');
  let best = -Infinity;
  for (const i of rows) if (!Number.isNaN(lim[i]) && lim[i] > best) best = lim[i];
  return best > -Infinity ? best : ctx.rateLimit?.limit;
}

/** Answered, not 429: a request the window counted and let through. */
export function isCounted(c: RateCols, i: number): boolean {
  const s = c.col('status')[i];
  return s > 0 && s !== 429;
}

/** `rows` (not changed) sorted by a column, ties by row index. */
export function sortBy(c: RateCols, rows: ArrayLike<number>, col: RateColumn): Uint32Array {
  return sortRows(Uint32Array.from(rows), c.col(col));
}

/** The most rows whose starts fit in one span of `span` ms (rows sorted by tStart). */
export function densest(c: RateCols, sortedRows: ArrayLike<number>, span: number): { count: number; from: number; to: number } {
  const ts = c.col('tStart');
  let best = { count: 0, from: 0, to: 0 };
  let lo = 0;
  for (let hi = 0; hi < sortedRows.length; hi++) {
    while (ts[sortedRows[hi]] - ts[sortedRows[lo]] > span) lo++;
    if (hi - lo + 1 > best.count) best = { count: hi - lo + 1, from: lo, to: hi };
  }
  return best;
}

/** `rows` may be a typed array: the evidence's lists are plain arrays of the values all the same. */
export function rowEvidence(c: RateCols, key: string, rows: ArrayLike<number>, message: string): Evidence {
  const seq = c.col('seq');
  const ts = c.col('tStart');
  const n = rows.length;
  const pick = n > 6 ? [rows[0], rows[1], rows[2], rows[n - 3], rows[n - 2], rows[n - 1]] : Array.from(rows);
  return { message, seqs: pick.map((i) => seq[i]), times: pick.map((i) => Math.round(ts[i] * 10) / 10), keys: [key] };
}
