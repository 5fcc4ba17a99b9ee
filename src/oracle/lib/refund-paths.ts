/**
 * Which refund paths the target serves, derived from the history alone (src/spec/refund.ts):
 * a path is not served when it answered 404 or 405 to a refund of a payment that the asking key
 * may refund (its creator's merchant and mode), and never answered anything else that reached
 * the service (no 2xx, 4xx other than 404/405, or 422). Otherwise it is served (or untried).
 * The refund rules (REF-*, SEC-1, AUTH-8, ERR-2, REF-7) judge refunds on served paths alone.
 */
import { REFUND_PATH_NOT_SERVED_STATUSES, type Evidence, type RefundPath } from '../../spec/index.ts';
import { type ExchangeRecord } from '../../history/index.ts';
import { refundPathOf, type Ledger, type RefundRequest } from '../ledger.ts';
import type { OracleContext } from '../types.ts';
import { isRefundRequest, withoutBodies } from './exchange.ts';
import type { Findings } from './findings.ts';
import { refundInconclusive, sameOwner } from './refunds.ts';

export interface RefundPathFacts {
  path: RefundPath;
  /** Refund requests that reached the service on this path. */
  tried: number;
  /** False only with evidence: 404/405 for an own payment, and no other answer. */
  served: boolean;
  /** The 404/405 answers to own payments (the evidence when not served). */
  refusals: RefundRequest[];
  /** Answers that show the path is routed (2xx, 422, other 4xx): how many, and the first. */
  routed: number;
  firstRouted: RefundRequest | undefined;
}

/** The tally so far, per ledger, and how many of its refund requests (in arrival order) it has read. */
const tallies = new WeakMap<Ledger, { read: number; facts: Record<RefundPath, RefundPathFacts> }>();

/**
 * Served or not, per path, from the ledger's refund requests. Kept as a running tally: refund
 * exchanges ask for every request, so recounting them all each time would be quadratic in the run.
 * A request is classified when first read (its payment's owner is known by then: it was created first).
 */
export function refundPaths(ctx: OracleContext): Record<RefundPath, RefundPathFacts> {
  let tally = tallies.get(ctx.ledger);
  if (!tally) {
    tally = {
      read: 0,
      facts: {
        payment: { path: 'payment', tried: 0, served: true, refusals: [], routed: 0, firstRouted: undefined },
        refunds: { path: 'refunds', tried: 0, served: true, refusals: [], routed: 0, firstRouted: undefined },
      },
    };
    tallies.set(ctx.ledger, tally);
  }
  const log = ctx.ledger.refundRequestLog;
  if (tally.read === log.length) return tally.facts;
  for (; tally.read < log.length; tally.read++) {
    const q = log.at(tally.read);
    if (refundInconclusive(q)) continue;
    const f = tally.facts[q.path];
    f.tried++;
    if (REFUND_PATH_NOT_SERVED_STATUSES.includes(q.status)) {
      if (sameOwner(ctx, q)) f.refusals.push(q);
    } else if (f.routed++ === 0) f.firstRouted = q;
  }
  for (const f of Object.values(tally.facts)) f.served = !(f.refusals.length > 0 && f.routed === 0);
  return tally.facts;
}

/** Whether a refund request's path is served (true for paths the run never showed unserved). */
export function servedPath(ctx: OracleContext, path: RefundPath): boolean {
  return refundPaths(ctx)[path].served;
}

/** A refund exchange on a path the target does not serve: its 404/405 says nothing about the refund rules. */
export function onUnservedRefundPath(ctx: OracleContext, x: ExchangeRecord): boolean {
  return isRefundRequest(x) && !servedPath(ctx, refundPathOf(x));
}

/** Human names of the paths. */
export const REFUND_PATH_NAMES: Record<RefundPath, string> = {
  payment: 'POST /v1/payments/{id}/refund',
  refunds: 'POST /v1/refunds',
};

/**
 * Violations found on refund requests answered 404 or 405, held until the end: the spec leaves
 * open which refund path a service serves, and on a path it does not serve the answer (a
 * router's or a gateway's, often not JSON, with no error object or rate headers) is not the
 * API's. Which paths are served is known only from the whole history. Bounded: past it a held
 * violation is recorded at once, which can only add a violation, never hide one.
 */
export class UnservedPathHold {
  private readonly held: { rec: ExchangeRecord; e: Evidence }[] = [];
  constructor(private readonly max = 1000) {}

  /** Records the violation now, or holds it when it may be an unserved path's answer. */
  violation(f: Findings, rec: ExchangeRecord, e: Evidence): void {
    if (isRefundRequest(rec) && REFUND_PATH_NOT_SERVED_STATUSES.includes(rec.status) && this.held.length < this.max) this.held.push({ rec: withoutBodies(rec), e });
    else f.violation(e);
  }

  /** At the end: the held violations on served paths count. */
  release(ctx: OracleContext, f: Findings): void {
    for (const h of this.held) if (!onUnservedRefundPath(ctx, h.rec)) f.violation(h.e);
  }
}
