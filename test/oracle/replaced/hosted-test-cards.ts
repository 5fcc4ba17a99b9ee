// The check as it was before it kept its state by payment row (commit 62ddc55): the reference
// test/oracle/hosted-by-row.test.ts compares the current one with. Not registered; do not edit.
import { CARD_EXPECTED, type CardOutcome } from '../../../src/spec/index.ts';
import type { Invariant } from '../../../src/oracle/types.ts';
import { faultOverlapping } from '../../../src/oracle/lib/faults.ts';
import { Findings, evidence, evidenceRec, show, type EvidenceSource } from '../../../src/oracle/lib/findings.ts';
import { endedFromRequiresAction } from '../../../src/oracle/lib/implied-states.ts';

const JUDGED = new Set<CardOutcome>(['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge']);

/**
 * TEST-3: the test cards work on the hosted page with the same outcomes as on the Direct
 * API: success, the two declines with their codes, and a 3DS challenge (the payment waits
 * in requires_action after the form, or the challenge was completed).
 */
const invariant: Invariant = {
  id: 'hosted-test-cards',
  title: 'The test cards work on the hosted page with the same outcomes',
  rules: ['TEST-3'],
  create(ctx) {
    const f = new Findings();
    /** First submit per payment; its outcome is decided while it is in flight, so a fault excuses from its start. */
    const submits = new Map<string, { outcome: CardOutcome; tStart: number; tEnd: number; rec: EvidenceSource }>();
    const challenged = new Set<string>();
    return {
      kinds: ['exchange'],
      ops: ['complete_3ds', 'submit_hpp'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !rec.sent.paymentId) return;
        if (rec.op === 'complete_3ds') challenged.add(rec.sent.paymentId);
        if (rec.op !== 'submit_hpp' || !rec.sent.cardOutcome || !JUDGED.has(rec.sent.cardOutcome) || rec.status === 0 || rec.status >= 400) return;
        if (!submits.has(rec.sent.paymentId)) submits.set(rec.sent.paymentId, { outcome: rec.sent.cardOutcome, tStart: rec.tStart, tEnd: rec.tEnd, rec: evidenceRec(rec) });
      },
      finish() {
        const { ledger } = ctx;
        for (const [id, s] of submits) {
          const facts = ledger.payments.get(id);
          if (facts && facts.mode !== 'test') continue;
          const end = ledger.firstTerminal(id);
          if (s.outcome === 'three_ds_challenge') {
            // Expired (or failed three_d_secure_*) after the form implies the challenge opened, even
            // when it timed out before a poll saw it (lib/implied-states.ts).
            const waited = ledger.paymentSpans.lastStart(id, 'requires_action').t > s.tEnd || ledger.threeDs.has(id) || challenged.has(id) || endedFromRequiresAction(ctx, id);
            if (waited) f.check();
            else if (end && end.status !== 'canceled') {
              f.check();
              if (!faultOverlapping(ledger.faults, s.tStart, end.t)) f.violation(evidence(`hosted payment ${id} submitted with the 3DS card ended ${end.status} without a challenge`, [s.rec], { seqs: [end.seq] }));
            }
            continue;
          }
          if (!end) continue;
          f.check();
          const want = CARD_EXPECTED[s.outcome];
          // A code only a list page could have shown is unknown: the status is judged alone then.
          const code = ledger.failureCodeOf(id);
          if ((end.status !== want.status || (want.code !== null && code !== undefined && code !== want.code)) && !faultOverlapping(ledger.faults, s.tStart, end.t)) {
            f.violation(evidence(`hosted payment ${id} submitted with the "${s.outcome}" card ended ${end.status} ${show(code)} (expected ${want.status}${want.code ? ` with ${want.code}` : ''})`, [s.rec], { seqs: [end.seq] }));
          }
        }
        return f.outcome('no hosted page was submitted with a sandbox test card and then seen settled');
      },
    };
  },
};
export default invariant;
