/** Reading list requests and the payments a list should show. */
import { LIMITS, TERMINAL_STATUSES, type PaymentStatus } from '../../spec/index.ts';
import { type ExchangeRecord } from '../../history/index.ts';
import type { PaymentFacts } from '../ledger.ts';
import type { OracleContext } from '../types.ts';

export interface ListParams {
  /** The page size asked for: a number, undefined (default), or NaN when not a valid integer. */
  limit: number | undefined;
  startingAfter: string | undefined;
  status: string | undefined;
  /** Unix seconds; NaN when not numeric. */
  gte: number | undefined;
  lt: number | undefined;
}

function num(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  return n;
}

export function listParams(x: ExchangeRecord): ListParams {
  const l = x.sent.list ?? {};
  return { limit: num(l.limit), startingAfter: l.startingAfter, status: l.status, gte: num(l.createdGte), lt: num(l.createdLt) };
}

/** The page size that applies, or null when the limit is invalid (400 expected). */
export function effectiveLimit(p: ListParams): number | null {
  if (p.limit === undefined) return LIMITS.pageLimitDefault;
  return Number.isInteger(p.limit) && p.limit >= LIMITS.pageLimitMin && p.limit <= LIMITS.pageLimitMax ? p.limit : null;
}

export function inCreatedRange(created: number | null, p: ListParams): boolean {
  if (created === null) return p.gte === undefined && p.lt === undefined;
  return (p.gte === undefined || created >= p.gte) && (p.lt === undefined || created < p.lt);
}

/** A filter key: pages of one walk share their filters. */
export function filterKey(p: ListParams): string {
  return JSON.stringify([p.status ?? null, p.gte ?? null, p.lt ?? null, p.limit ?? null]);
}

/**
 * Payments a complete listing by `key` that started at `t` must show: made by that key,
 * answered before t, within the created bounds and, with a status filter, certainly in that
 * status for good before t (a terminal status seen before t). Undefined when a non-terminal
 * status filter makes membership uncertain.
 */
export function mustShow(ctx: OracleContext, byKey: ReadonlyMap<string, readonly PaymentFacts[]>, key: string, t: number, p: ListParams): PaymentFacts[] | undefined {
  const status = p.status?.toLowerCase() as PaymentStatus | undefined;
  if (status && !TERMINAL_STATUSES.has(status)) return undefined;
  if ((p.gte !== undefined && Number.isNaN(p.gte)) || (p.lt !== undefined && Number.isNaN(p.lt))) return undefined;
  const out: PaymentFacts[] = [];
  for (const f of byKey.get(key) ?? []) {
    if (f.tEnd >= t) break;
    if ((p.gte !== undefined || p.lt !== undefined) && (f.created === null || !inCreatedRange(f.created, p))) continue;
    if (status && !(ctx.ledger.paymentSpans.firstEnd(f.id, status).t < t)) continue;
    out.push(f);
  }
  return out;
}

/** The run's payments per creating key, by the time their create was answered. */
export function paymentsByKey(ctx: OracleContext): ReadonlyMap<string, PaymentFacts[]> {
  return ctx.ledger.paymentsByKey();
}
