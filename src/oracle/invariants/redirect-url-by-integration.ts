import type { Invariant } from '../types.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

/** PAY-13 (presentation B): redirect_url is null for Direct API payments and set for hosted ones while their page is open. */
const invariant: Invariant = {
  id: 'redirect-url-by-integration',
  title: 'Presentation B: redirect_url is null for Direct API payments and set for hosted ones',
  rules: ['PAY-13'],
  create(ctx) {
    const f = new Findings();
    return {
      answers: 'payments',
      onRecord(rec) {
        const o = observedPayment(rec);
        if (!o || o.payment.presentation !== 'B') return;
        const facts = ctx.ledger.payments.get(o.payment.id);
        if (!facts) return;
        f.check();
        // The spec types it "string or null" and says only that it is the hosted page's URL:
        // required while the page is what the payment waits on (its create answer, or
        // next_action hosted_payment_page); once the page is used or gone, null is allowed.
        const pageOpen = (o.kind === 'exchange' && o.seq === facts.seq) || o.payment.nextAction?.reason === 'hosted_payment_page';
        if (facts.hosted && pageOpen && !o.payment.redirectUrl) f.violation(evidence(`hosted payment ${o.payment.id} has redirect_url ${show(o.payment.redirectUrl)}`, [o]));
        if (!facts.hosted && o.payment.redirectUrl !== null) f.violation(evidence(`Direct API payment ${o.payment.id} has redirect_url ${show(o.payment.redirectUrl)} (expected null)`, [o]));
      },
      finish: () => f.outcome('no presentation B payment created by the run was seen'),
    };
  },
};
export default invariant;
