import { CARD_EXPECTED, type CardOutcome } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { Findings, evidence, evidenceRec, show, type EvidenceSource } from '../lib/findings.ts';
import { EvidenceTable } from '../lib/evidence-table.ts';
import { Float64Column, Uint32Column, Uint8Column } from '../lib/paged-column.ts';
import { EarliestByPayment } from '../lib/payment-times.ts';
import { endedFromRequiresAction } from '../lib/implied-states.ts';

/** The outcomes judged, coded 1.. by their place here (0: no submit judged). */
const JUDGED: readonly CardOutcome[] = ['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge'];

interface Submit {
  outcome: CardOutcome;
  tStart: number;
  tEnd: number;
}

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
    const rows = ctx.ledger.paymentRows;
    // The first judged submit of each payment, by the payment's row (paged columns: a soak's old
    // hosted payments wait on disk, where a Map by id grew with every one). Its outcome is decided
    // while it is in flight, so a fault excuses from its start.
    const outcomes = new Uint8Column();
    const starts = new Float64Column();
    const ends = new Float64Column();
    const evidenceAt = new Uint32Column();
    const kept = new EvidenceTable();
    /** Rows in the order of their first judged submit (the order violations are named in). */
    const order = new Float64Column();
    let submits = 0;
    /** Payments a complete_3ds was sent for. */
    const challenged = new EarliestByPayment(rows);
    // A payment the ledger has no row for (never seen in an answer: its create was not recorded)
    // is kept by id, and named in `order` as -1 - its place in `orphans`.
    const orphans: { id: string; s: Submit; rec: EvidenceSource }[] = [];
    const orphanAt = new Map<string, number>();
    return {
      kinds: ['exchange'],
      ops: ['complete_3ds', 'submit_hpp'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !rec.sent.paymentId) return;
        const id = rec.sent.paymentId;
        if (rec.op === 'complete_3ds') challenged.note(id, rec.tStart);
        const code = rec.sent.cardOutcome ? JUDGED.indexOf(rec.sent.cardOutcome) + 1 : 0;
        if (rec.op !== 'submit_hpp' || code === 0 || rec.status === 0 || rec.status >= 400) return;
        if (orphanAt.has(id)) return;
        const row = rows.find(id);
        if (row === undefined) {
          orphanAt.set(id, orphans.length);
          orphans.push({ id, s: { outcome: rec.sent.cardOutcome!, tStart: rec.tStart, tEnd: rec.tEnd }, rec: evidenceRec(rec) });
          order.set(submits++, -orphans.length);
          return;
        }
        if (outcomes.get(row) !== 0) return;
        outcomes.set(row, code);
        starts.set(row, rec.tStart);
        ends.set(row, rec.tEnd);
        evidenceAt.set(row, kept.push(rec));
        order.set(submits++, row);
      },
      finish() {
        const { ledger } = ctx;
        for (let k = 0; k < submits; k++) {
          const at = order.get(k);
          let id: string;
          let s: Submit;
          // The submit's exchange, read back only to name a violation.
          const recOf = (): EvidenceSource => (at < 0 ? orphans[-1 - at].rec : kept.at(evidenceAt.get(at)));
          if (at < 0) {
            ({ id, s } = orphans[-1 - at]);
          } else {
            id = rows.idAt(at);
            s = { outcome: JUDGED[outcomes.get(at) - 1], tStart: starts.get(at), tEnd: ends.get(at) };
          }
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
              if (!faultOverlapping(ledger.faults, s.tStart, end.t)) f.violation(evidence(`hosted payment ${id} submitted with the 3DS card ended ${end.status} without a challenge`, [recOf()], { seqs: [end.seq] }));
            }
            continue;
          }
          if (!end) continue;
          f.check();
          const want = CARD_EXPECTED[s.outcome];
          // A code only a list page could have shown is unknown: the status is judged alone then.
          const code = ledger.failureCodeOf(id);
          if ((end.status !== want.status || (want.code !== null && code !== undefined && code !== want.code)) && !faultOverlapping(ledger.faults, s.tStart, end.t)) {
            f.violation(evidence(`hosted payment ${id} submitted with the "${s.outcome}" card ended ${end.status} ${show(code)} (expected ${want.status}${want.code ? ` with ${want.code}` : ''})`, [recOf()], { seqs: [end.seq] }));
          }
        }
        return f.outcome('no hosted page was submitted with a sandbox test card and then seen settled');
      },
    };
  },
};
export default invariant;
