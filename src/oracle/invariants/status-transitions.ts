import { PAYMENT_STATUSES, TERMINAL_STATUSES, isAllowedTransition, type PaymentStatus } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { EarliestByPayment } from '../lib/payment-times.ts';

const KNOWN_STATUSES: ReadonlySet<string> = new Set(PAYMENT_STATUSES);

/**
 * Moves out of requires_action the table does not list, but which a customer's action explains.
 * The table's triggers out of REQUIRES_ACTION are the customer's (submitting the hosted page,
 * completing 3DS) or a time-out. After the customer acts, the payment goes to the processor and
 * its outcome is, for a while, not known: that is what PENDING / PROCESSING mean, and the spec
 * leaves moves out of them open. The hosted-page row gives no status for a card without 3DS at
 * all, yet TEST-3 wants the test cards' usual outcomes there ("201 with pending, later failed"),
 * and "Authentication succeeds -> SUCCEEDED" names the result, not the absence of an authorization
 * step after it. So requires_action -> pending/processing is allowed once a customer action for
 * the payment was sent (submit_hpp or complete_3ds); without one it still fails (nothing asked
 * the service to leave requires_action but the clock, which leads to expired).
 */
const AFTER_CUSTOMER_ACTION: ReadonlySet<PaymentStatus> = new Set(['pending', 'processing']);

/**
 * SM-1: every pair of observations of one payment that are certainly ordered (one ended
 * before the other started) follows the transition table (src/spec/statuses.ts). Moves out
 * of a terminal status are SM-2's. A payment answered (or listed) in a status the table does not
 * have at all (say `refunded`) is a move the table does not allow: such a body is no Payment to
 * the ledger, so it is caught here, from the answer itself.
 */
const invariant: Invariant = {
  id: 'status-transitions',
  title: 'Every status sequence observed for one payment follows the transition table',
  rules: ['SM-1'],
  create(ctx) {
    const f = new Findings();
    /** Payments a customer acted on (hosted page submitted, 3DS completed; not refused): the earliest start. */
    const acted = new EarliestByPayment(ctx.ledger.paymentRows);
    return {
      kinds: ['exchange'],
      ops: ['submit_hpp', 'complete_3ds', 'create', 'create_hpp', 'retrieve', 'list', 'refund', 'refund_create'],
      onRecord(rec) {
        if (rec.kind !== 'exchange') return;
        if (is2xx(rec.status)) {
          // A payment body whose status is none of the table's: not parsed as a Payment, named in its shape problems.
          const unknown = rec.payment === null && rec.list === null ? rec.shapeProblems?.find((p) => p.startsWith('status:') && !p.endsWith('got undefined')) : undefined;
          if (unknown) {
            f.check();
            f.violation(evidence(`a payment was answered with ${unknown.replace(/^status: expected an? \w+ status, got /, '')} as its status, which the transition table does not have`, [rec]));
          }
          const listed = rec.list?.statuses.findIndex((st) => st !== '' && !KNOWN_STATUSES.has(st)) ?? -1;
          if (listed >= 0) {
            f.check();
            f.violation(evidence(`payment ${rec.list!.ids[listed]} was listed with status "${rec.list!.statuses[listed]}", which the transition table does not have`, [rec]));
          }
        }
        if ((rec.op !== 'submit_hpp' && rec.op !== 'complete_3ds') || !rec.sent.paymentId) return;
        // A refused action (404, 410, 400...) did nothing; one that got no answer may have been taken.
        if (rec.status >= 400) return;
        const id = rec.sent.paymentId;
        acted.note(id, rec.tStart);
      },
      finish() {
        const spans = ctx.ledger.paymentSpans;
        for (const id of spans.ids()) {
          const pairs = spans.orderedPairs(id);
          if (pairs.length === 0) continue;
          f.check();
          const bad = pairs.find(
            (p) =>
              !TERMINAL_STATUSES.has(p.from) &&
              !isAllowedTransition(p.from, p.to) &&
              !(p.from === 'requires_action' && AFTER_CUSTOMER_ACTION.has(p.to) && (acted.get(id) ?? Infinity) < p.toStart),
          );
          if (bad) f.violation({ message: `payment ${id} moved ${bad.from} -> ${bad.to}, which the transition table does not allow`, seqs: [bad.fromSeq, bad.toSeq], times: [bad.fromEnd, bad.toStart], paymentIds: [id] });
        }
        return f.outcome('no payment was seen in two different statuses');
      },
    };
  },
};
export default invariant;
