import type { Invariant } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

/** REF-2: refunded_amount (A: amount_refunded) is the sum of the payment's succeeded refunds only. */
const invariant: Invariant = {
  id: 'refunded-amount-sum',
  title: 'refunded_amount (A: amount_refunded) is the sum of succeeded refunds only',
  rules: ['REF-2'],
  create() {
    const f = new Findings();
    return {
      answers: 'payments',
      onRecord(rec) {
        const o = observedPayment(rec);
        if (!o || !o.payment.refunds || o.payment.refunds.length === 0 || o.payment.amountRefunded === null) return;
        const succeeded = o.payment.refunds.filter((r) => r.status === 'succeeded');
        // A refund entry's amount is not shown by the spec: without every succeeded amount there is no sum to compare.
        if (succeeded.some((r) => r.amount === null)) return;
        f.check();
        const sum = succeeded.reduce((n, r) => n + (r.amount ?? 0), 0);
        if (o.payment.amountRefunded !== sum) {
          f.violation(evidence(`payment ${o.payment.id} says ${o.payment.presentation === 'A' ? 'amount_refunded' : 'refunded_amount'} ${o.payment.amountRefunded}, but its succeeded refunds add up to ${sum}`, [o]));
        }
      },
      finish: () => f.outcome('no payment with refunds was seen'),
    };
  },
};
export default invariant;
