import type { Invariant } from '../types.ts';
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
  create() {
    const f = new Findings();
    // Payments a refund was accepted for (2xx), whatever the payment body shows.
    const refundRequested = new Set<string>();
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange' && (rec.op === 'refund' || rec.op === 'refund_create') && rec.status >= 200 && rec.status < 300) {
          const id = rec.refund?.paymentId || rec.sent.paymentId;
          if (id) refundRequested.add(id);
        }
        const o = observedPayment(rec);
        if (!o || o.payment.presentation !== 'A' || o.payment.amountRefundable === null) return;
        const p = o.payment;
        const refundable = p.amountRefundable!;
        const refunded = p.amountRefunded ?? 0;
        f.check();
        let problem: string | null = null;
        if (p.status !== 'succeeded' && refundable !== 0) problem = `is ${refundable} while the payment is ${p.wireStatus} (expected 0 before success)`;
        else if (p.status === 'succeeded' && refunded === 0 && !(p.refunds?.length) && !refundRequested.has(p.id) && refundable !== p.amount) problem = `is ${refundable} after an unrefunded success (expected the amount ${p.amount})`;
        else if (refundable > p.amount - refunded) problem = `is ${refundable}, above amount ${p.amount} - amount_refunded ${refunded}`;
        if (problem) f.violation(evidence(`payment ${p.id}: amount_refundable ${problem}`, [o]));
      },
      finish: () => f.outcome('no presentation A payment with amount_refundable was seen'),
    };
  },
};
export default invariant;
