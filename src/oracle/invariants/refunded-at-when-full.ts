import type { Invariant } from '../types.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

/** REF-6 (presentation B): refunded_at is set exactly when the refunded total reaches the amount. */
const invariant: Invariant = {
  id: 'refunded-at-when-full',
  title: 'refunded_at is set exactly when the refunded total reaches the amount',
  rules: ['REF-6'],
  create() {
    const f = new Findings();
    return {
      answers: 'payments',
      onRecord(rec) {
        const o = observedPayment(rec);
        if (!o || o.payment.presentation !== 'B' || o.payment.amountRefunded === null || o.payment.status !== 'succeeded') return;
        const p = o.payment;
        // Exercised by refunded payments; refunded_at set with nothing refunded still breaks the rule.
        if (p.amountRefunded! > 0) f.check();
        const full = p.amountRefunded! >= p.amount;
        if (full !== (p.refundedAt !== null)) f.violation(evidence(`payment ${p.id} has refunded ${p.amountRefunded} of ${p.amount} and refunded_at ${show(p.refundedAt)}`, [o]));
      },
      finish: () => f.outcome('no refunded presentation B payment was seen'),
    };
  },
};
export default invariant;
