// StatusFilterFacts as it was before it kept customer actions by payment row (commit 62ddc55), for
// the checks in test/oracle/replaced/ that test/oracle/lists-by-row.test.ts compares the current
// ones with. Not registered; do not edit.
import type { PaymentStatus } from '../../../src/spec/index.ts';
import type { ExchangeRecord } from '../../../src/history/index.ts';
import type { OracleContext } from '../../../src/oracle/types.ts';
import { withoutQuery } from '../../../src/oracle/lib/exchange.ts';

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
  private readonly acted = new Set<string>();
  /** A customer action that named no payment: it may have been for any. */
  private unattributed = false;
  private sawA = false;
  private sawB = false;

  note(rec: ExchangeRecord): void {
    const p = rec.payment;
    if (p) {
      if (p.presentation === 'A') this.sawA = true;
      else this.sawB = true;
    }
    if (rec.op === 'submit_hpp' || rec.op === 'complete_3ds') {
      if (rec.sent.paymentId) this.acted.add(rec.sent.paymentId);
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

