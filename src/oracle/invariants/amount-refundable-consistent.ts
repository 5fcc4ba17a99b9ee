import type { Invariant } from '../types.ts';
import { Uint8Column } from '../lib/paged-column.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

/**
 * PAY-10 (presentation A): amount_refundable is 0 before success, the full amount after an
 * unrefunded success, and never above amount - amount_refunded. "Unrefunded" means no refund
 * at all: a pending refund may already be held back from amount_refundable while
 * amount_refunded (succeeded refunds only) is still 0, and the spec does not forbid that.
 */
const invariant: Invariant = {
  id: 'amount-refundable-consistent',
  title: 'Presentation A: amount_refundable is 0 before success, the amount after an unrefunded success, never above amount - amount_refunded',
  rules: ['PAY-10'],
  create(ctx) {
    const f = new Findings();
    // Payments a refund was accepted for (2xx), whatever the payment body shows: a mark by the
    // payment's row in the ledger's payment rows (a paged column), not a Set of id strings.
    const rows = ctx.ledger.paymentRows;
    const refundRequested = new Uint8Column();
    const requested = (id: string) => {
      const r = rows.find(id);
      return r !== undefined && refundRequested.get(r) === 1;
    };
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange' && (rec.op === 'refund' || rec.op === 'refund_create') && rec.status >= 200 && rec.status < 300) {
          const id = rec.refund?.paymentId || rec.sent.paymentId;
          if (id) refundRequested.set(rows.rowOf(id), 1);
        }
        const o = observedPayment(rec);
        if (!o || o.payment.presentation !== 'A' || o.payment.amountRefundable === null) return;
        const p = o.payment;
        const refundable = p.amountRefundable!;
        const refunded = p.amountRefunded ?? 0;
        f.check();
        let problem: string | null = null;
        if (p.status !== 'succeeded' && refundable !== 0) problem = `is ${refundable} while the payment is ${p.wireStatus} (expected 0 before success)`;
        else if (p.status === 'succeeded' && refunded === 0 && !(p.refunds?.length) && !requested(p.id) && refundable !== p.amount) problem = `is ${refundable} after an unrefunded success (expected the amount ${p.amount})`;
        else if (refundable > p.amount - refunded) problem = `is ${refundable}, above amount ${p.amount} - amount_refunded ${refunded}`;
        if (problem) f.violation(evidence(`payment ${p.id}: amount_refundable ${problem}`, [o]));
      },
      finish: () => f.outcome('no presentation A payment with amount_refundable was seen'),
    };
  },
};
export default invariant;
