/** Reading list requests and the payments a list should show. */
import { LIMITS, TERMINAL_STATUSES, type PaymentStatus } from '../../spec/index.ts';
import { type ExchangeRecord } from '../../history/index.ts';
import type { PaymentFacts } from '../ledger.ts';
import type { PaymentList } from './payment-table.ts';
import type { OracleContext } from '../types.ts';
import { withoutQuery } from './exchange.ts';
import { EarliestByPayment } from './payment-times.ts';
import type { PaymentRows } from './payment-rows.ts';

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

/** Non-terminal statuses a list filter takes: a payment may leave them while a page is served. */
/** The API's own paths (src/spec/operations.ts), under any base path: a raw probe sent to one is no customer action. */
const API_PATH = /\/v1\/(?:payments(?:\/hpp|\/[^/]+(?:\/refund)?)?|refunds)\/?$/;
const NON_TERMINAL_FILTERS: ReadonlySet<string> = new Set<PaymentStatus>(['pending', 'requires_action']);

/**
 * What judging a non-terminal status filter (`pending`, `requires_action`) needs beyond the
 * ledger: which payments a customer acted on, and which presentation the payments came in.
 * A payment in such a status can leave it while a page is served, so a complete listing must
 * show it only when it was surely in the status all through the listing: seen in it by an
 * answer that ended before the listing began and again by one that started after it ended,
 * with no way out and back in between.
 * - Terminal statuses are final: seen in the status after, it did not settle in between.
 * - requires_action is left for pending or processing only after a customer action (hosted
 *   page submitted, 3DS completed: status-transitions, SM-1), and pending for requires_action
 *   (3DS) and back the same way: a payment any customer action was sent for (whatever its
 *   answer, whenever) is not judged; nor is any, once an action named no payment.
 * - Presentation A's PENDING and PROCESSING may move between each other (the spec leaves moves
 *   out of them open), and whether `status=pending` also takes PROCESSING is open (LIST-6): a
 *   pending filter is judged only when the run's payments come in presentation B, on payments
 *   never seen processing (which B does not have).
 */
export class StatusFilterFacts {
  /** Operations whose records `note` wants: the answers carrying payments, and the customer's actions. */
  static readonly OPS = ['create', 'create_hpp', 'retrieve', 'submit_hpp', 'complete_3ds', 'raw'] as const;
  /** Payments a customer action (hosted page submit, 3DS completion) was sent for. */
  private readonly acted: EarliestByPayment;
  /** A customer action that named no payment: it may have been for any. */
  private unattributed = false;
  private sawA = false;
  private sawB = false;

  constructor(rows: PaymentRows) {
    this.acted = new EarliestByPayment(rows);
  }

  note(rec: ExchangeRecord): void {
    const p = rec.payment;
    if (p) {
      if (p.presentation === 'A') this.sawA = true;
      else this.sawB = true;
    }
    if (rec.op === 'submit_hpp' || rec.op === 'complete_3ds') {
      if (rec.sent.paymentId) this.acted.note(rec.sent.paymentId, rec.tStart);
      else this.unattributed = true;
    } else if (rec.op === 'raw' && !API_PATH.test(withoutQuery(rec.sent.path ?? ''))) {
      // A hand-made request off the API's own paths (a user scenario following redirect_url
      // itself) may be a customer action, for any payment.
      this.unattributed = true;
    }
  }

  /** Whether a filter on this non-terminal status can be judged at all in this run. */
  judges(ctx: OracleContext, status: string): boolean {
    if (!NON_TERMINAL_FILTERS.has(status) || this.unattributed) return false;
    if (status !== 'pending') return true;
    return !this.sawA && (ctx.presentation === 'B' || (ctx.presentation === null && this.sawB));
  }

  /** Whether payment `id` was surely in non-terminal `status` all through [from, to] (see the class). */
  throughout(ctx: OracleContext, id: string, status: PaymentStatus, from: number, to: number): boolean {
    const spans = ctx.ledger.paymentSpans;
    if (this.acted.has(id)) return false;
    if (status === 'pending' && spans.seen(id, 'processing')) return false;
    return spans.firstEnd(id, status).t < from && spans.lastStart(id, status).t > to;
  }
}

/** The span a listing was served in (a page, or a walk's first page start to last page end), widened by clock slack. */
export interface ServedDuring {
  from: number;
  to: number;
  facts: StatusFilterFacts;
}

/**
 * Payments a complete listing by `key` that started at `t` must show: made by that key,
 * answered before t, within the created bounds and, with a status filter, certainly in that
 * status while the listing was served: a terminal status seen before t (it is for good), or a
 * non-terminal one held all through `during` (see StatusFilterFacts). Undefined when the
 * status filter makes membership uncertain (a non-terminal filter without `during`, or one
 * this run cannot judge).
 */
export function mustShow(ctx: OracleContext, byKey: ReadonlyMap<string, Iterable<PaymentFacts>>, key: string, t: number, p: ListParams, during?: ServedDuring): PaymentFacts[] | undefined {
  const status = p.status?.toLowerCase() as PaymentStatus | undefined;
  const terminal = status !== undefined && TERMINAL_STATUSES.has(status);
  if (status && !terminal && !during?.facts.judges(ctx, status)) return undefined;
  if ((p.gte !== undefined && Number.isNaN(p.gte)) || (p.lt !== undefined && Number.isNaN(p.lt))) return undefined;
  const out: PaymentFacts[] = [];
  for (const f of byKey.get(key) ?? []) {
    if (f.tEnd >= t) break;
    if ((p.gte !== undefined || p.lt !== undefined) && (f.created === null || !inCreatedRange(f.created, p))) continue;
    if (status && terminal && !(ctx.ledger.paymentSpans.firstEnd(f.id, status).t < t)) continue;
    if (status && !terminal && !during!.facts.throughout(ctx, f.id, status, during!.from, during!.to)) continue;
    out.push(f);
  }
  return out;
}

/** The run's payments per creating key, by the time their create was answered. */
export function paymentsByKey(ctx: OracleContext): ReadonlyMap<string, PaymentList> {
  return ctx.ledger.paymentsByKey();
}
