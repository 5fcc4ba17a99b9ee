import { CARD_EXPECTED } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { errorType, isCreate } from '../lib/exchange.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { Findings, evidence, evidenceRec, show, type EvidenceSource } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

const DESIGNATED = ['do_not_honor', 'insufficient_funds'] as const;

/**
 * PAY-16: a failed payment carries its reason (failure_code in A, decline_code in B), and the
 * sandbox decline cards give their designated codes (also in a synchronous 422's decline_code)
 * to a test key.
 * A different code while a fault overlapped the payment's life is not judged: the fault may
 * have decided the outcome.
 */
const invariant: Invariant = {
  id: 'failure-reason',
  title: 'A failed payment carries its reason; sandbox decline cards give their designated codes',
  rules: ['PAY-16'],
  create(ctx) {
    const f = new Findings();
    /** The designated codes are the sandbox processor's: a live key only has to refuse test cards (AUTH-7), in no set form. */
    const testMode = (key: string) => ctx.keys.get(key)?.mode === 'test';
    const wrongCode: { id: string; rec: EvidenceSource; t: number; msg: string }[] = [];
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange' && isCreate(rec) && rec.status === 422 && errorType(rec) === 'card_error') {
          const outcome = testMode(rec.key) ? rec.sent.cardOutcome : undefined;
          if (outcome && (DESIGNATED as readonly string[]).includes(outcome)) {
            f.check();
            const want = CARD_EXPECTED[outcome].code;
            if (rec.error?.decline_code !== want) wrongCode.push({ id: '', rec: evidenceRec(rec), t: rec.tEnd, msg: `422 for the "${outcome}" card has decline_code ${show(rec.error?.decline_code)} (expected ${want})` });
          }
        }
        const o = observedPayment(rec);
        if (!o || o.payment.status !== 'failed') return;
        f.check();
        const p = o.payment;
        if (!p.failureCode) {
          f.violation(evidence(`failed payment ${p.id} has no ${p.presentation === 'A' ? 'failure_code' : 'decline_code'}`, [o]));
          return;
        }
        const facts = ctx.ledger.payments.get(p.id);
        const outcome = facts && testMode(facts.key) ? facts.cardOutcome : undefined;
        if (outcome && (DESIGNATED as readonly string[]).includes(outcome) && p.failureCode !== CARD_EXPECTED[outcome].code) {
          wrongCode.push({ id: p.id, rec: evidenceRec(o), t: o.kind === 'exchange' ? o.tEnd : o.tReceived, msg: `payment ${p.id} with the "${outcome}" card failed with ${p.failureCode} (expected ${CARD_EXPECTED[outcome].code})` });
        }
      },
      finish() {
        for (const w of wrongCode) {
          const from = w.id ? (ctx.ledger.payments.get(w.id)?.tStart ?? 0) : w.rec.kind === 'exchange' ? w.rec.tStart : 0;
          if (faultOverlapping(ctx.ledger.faults, from, w.t)) continue;
          f.violation(evidence(w.msg, [w.rec]));
        }
        return f.outcome('no failed payment was seen and no decline card was declined synchronously');
      },
    };
  },
};
export default invariant;
