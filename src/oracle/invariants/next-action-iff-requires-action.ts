import type { Invariant } from '../types.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

/** PAY-11: next_action is non-null exactly when the status is requires_action, and then a redirect with a redirect_url. */
const invariant: Invariant = {
  id: 'next-action-iff-requires-action',
  title: 'next_action is non-null exactly when the status is requires_action, with type redirect and a redirect_url',
  rules: ['PAY-11'],
  create() {
    const f = new Findings();
    return {
      answers: 'payments',
      onRecord(rec) {
        const o = observedPayment(rec);
        if (!o) return;
        const p = o.payment;
        f.check();
        const waiting = p.status === 'requires_action';
        if (waiting && !p.nextAction) f.violation(evidence(`payment ${p.id} is ${p.wireStatus} with next_action null`, [o]));
        else if (!waiting && p.nextAction) f.violation(evidence(`payment ${p.id} is ${p.wireStatus} yet has next_action ${show(p.nextAction)}`, [o]));
        else if (p.nextAction && (p.nextAction.type !== 'redirect' || !p.nextAction.redirectUrl)) {
          f.violation(evidence(`payment ${p.id}: next_action ${show(p.nextAction)} is not a redirect with a redirect_url`, [o]));
        }
      },
      finish: () => f.outcome('no payment was seen'),
    };
  },
};
export default invariant;
