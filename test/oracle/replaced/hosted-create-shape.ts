// The check as it was before it kept its state by payment row (commit 62ddc55): the reference
// test/oracle/hosted-by-row.test.ts compares the current one with. Not registered; do not edit.
import type { Invariant } from '../../../src/oracle/types.ts';
import { is2xx } from '../../../src/oracle/lib/exchange.ts';
import { Findings, evidence, evidenceRec, show, type EvidenceSource } from '../../../src/oracle/lib/findings.ts';
import { observedPayment } from '../../../src/oracle/lib/observations.ts';

/**
 * PAY-12: a hosted create answers 201, REQUIRES_ACTION, integration_type HOSTED_PAYMENT_PAGE
 * (A) and next_action {redirect, hosted_payment_page, redirect_url}; presentation B's
 * next_action has no reason field, so a null reason is accepted there. B: `card` stays null
 * until the page is completed (no observation that ended before the form was submitted shows a card).
 */
const invariant: Invariant = {
  id: 'hosted-create-shape',
  title: 'A hosted create returns 201 REQUIRES_ACTION with a hosted_payment_page redirect; B: card null until the page is completed',
  rules: ['PAY-12'],
  create() {
    const f = new Findings();
    const hostedB = new Set<string>();
    /** Earliest-ending observation of a hosted B payment that showed a card. */
    const cardSeen = new Map<string, { tEnd: number; seq: number; rec: EvidenceSource }>();
    const submitted = new Map<string, number>();
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange' && rec.op === 'submit_hpp' && rec.sent.paymentId) {
          const prev = submitted.get(rec.sent.paymentId);
          if (prev === undefined || rec.tStart < prev) submitted.set(rec.sent.paymentId, rec.tStart);
        }
        if (rec.kind === 'exchange' && rec.op === 'create_hpp' && is2xx(rec.status)) {
          f.check();
          const p = rec.payment;
          const problems: string[] = [];
          if (rec.status !== 201) problems.push(`status ${rec.status}`);
          if (!p) problems.push('no Payment in the body');
          else {
            if (p.status !== 'requires_action') problems.push(`payment status ${p.wireStatus}`);
            if (p.presentation === 'A' && p.hosted !== true) problems.push('integration_type is not HOSTED_PAYMENT_PAGE');
            const na = p.nextAction;
            const reasonOk = na?.reason === 'hosted_payment_page' || (p.presentation === 'B' && !na?.reason);
            if (!na || na.type !== 'redirect' || !na.redirectUrl || !reasonOk) problems.push(`next_action ${show(na)}`);
            if (p.presentation === 'B') {
              hostedB.add(p.id);
              if (p.card !== null) problems.push('card is set before the page was completed');
            }
          }
          if (problems.length) f.violation(evidence(`hosted create answered: ${problems.join('; ')}`, [rec]));
          return;
        }
        const o = observedPayment(rec);
        if (o && hostedB.has(o.payment.id) && o.payment.card !== null) {
          const end = o.kind === 'exchange' ? o.tEnd : o.tReceived;
          const prev = cardSeen.get(o.payment.id);
          if (!prev || end < prev.tEnd) cardSeen.set(o.payment.id, { tEnd: end, seq: o.seq, rec: evidenceRec(o) });
        }
      },
      finish() {
        for (const [id, seen] of cardSeen) {
          const sub = submitted.get(id);
          if (sub === undefined || seen.tEnd < sub) {
            f.violation(evidence(`hosted payment ${id} showed a card before its page was completed` + (sub === undefined ? ' (the form was never submitted)' : ''), [seen.rec]));
          }
        }
        return f.outcome('no hosted payment page create was answered 2xx');
      },
    };
  },
};
export default invariant;
