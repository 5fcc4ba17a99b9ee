import type { Invariant } from '../types.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

/** PAY-14 (presentation B): succeeded_at is set exactly when succeeded, failed_at exactly when failed. */
const invariant: Invariant = {
  id: 'status-timestamps',
  title: 'Presentation B: succeeded_at is set exactly when succeeded, failed_at exactly when failed',
  rules: ['PAY-14'],
  create() {
    const f = new Findings();
    return {
      answers: 'payments',
      onRecord(rec) {
        const o = observedPayment(rec);
        if (!o || o.payment.presentation !== 'B') return;
        const p = o.payment;
        f.check();
        if ((p.status === 'succeeded') !== (p.succeededAt !== null)) f.violation(evidence(`payment ${p.id} is ${p.wireStatus} with succeeded_at ${show(p.succeededAt)}`, [o]));
        if ((p.status === 'failed') !== (p.failedAt !== null)) f.violation(evidence(`payment ${p.id} is ${p.wireStatus} with failed_at ${show(p.failedAt)}`, [o]));
      },
      finish: () => f.outcome('no presentation B payment was seen'),
    };
  },
};
export default invariant;
