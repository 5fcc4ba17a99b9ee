import { CARD_EXPECTED } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { errorType, isCreate } from '../lib/exchange.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { Findings, evidence, evidenceRec, show, type EvidenceSource } from '../lib/findings.ts';
import { passedRequiresAction } from '../lib/implied-states.ts';

const JUDGED = new Set(['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge']);

/**
 * SM-3: in test mode the sandbox cards reach their designated outcome: success, the
 * do_not_honor and insufficient_funds declines (also when declined synchronously), and a
 * 3DS challenge. A wrong outcome while a fault overlapped the payment is not judged. The
 * challenge need not have been seen by a poll: ending expired, or failed with a
 * three_d_secure_* code, implies it (lib/implied-states.ts); canceled says nothing either way.
 */
const invariant: Invariant = {
  id: 'sandbox-card-outcome',
  title: 'Sandbox cards reach their designated outcome: success, do_not_honor, insufficient_funds, 3DS challenge',
  rules: ['SM-3'],
  create(ctx) {
    const f = new Findings();
    const sync: { rec: EvidenceSource; msg: string; from: number; to: number }[] = [];
    return {
      kinds: ['exchange'],
      ops: ['create'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'create' || !isCreate(rec) || rec.status !== 422 || errorType(rec) !== 'card_error') return;
        const o = rec.sent.cardOutcome;
        if (!o || !JUDGED.has(o) || ctx.keys.get(rec.key)?.mode !== 'test') return;
        f.check();
        const want = CARD_EXPECTED[o].code;
        if (o === 'succeeds' || o === 'three_ds_challenge' || rec.error?.decline_code !== want) {
          sync.push({ rec: evidenceRec(rec), from: rec.tStart, to: rec.tEnd, msg: `create with the "${o}" card was declined synchronously with ${show(rec.error?.decline_code)}` });
        }
      },
      finish() {
        const { ledger } = ctx;
        const faulted = (from: number, to: number) => faultOverlapping(ledger.faults, from, to) !== undefined;
        for (const s of sync) if (!faulted(s.from, s.to)) f.violation(evidence(s.msg, [s.rec]));
        for (const p of ledger.payments.values()) {
          if (p.mode !== 'test' || p.hosted || !p.cardOutcome || !JUDGED.has(p.cardOutcome)) continue;
          const end = ledger.firstTerminalOf(p);
          const ev = (msg: string) => ({ message: msg, seqs: end ? [p.seq, end.seq] : [p.seq], paymentIds: [p.id], keys: [p.key] });
          if (p.cardOutcome === 'three_ds_challenge') {
            // A challenge that expired before the first poll was still a challenge (lib/implied-states.ts).
            if (passedRequiresAction(ctx, p.id)) f.check();
            else if (end && end.status !== 'canceled') {
              f.check();
              if (!faulted(p.tStart, end.t)) f.violation(ev(`payment ${p.id} with the 3DS card reached ${end.status} without a challenge (never requires_action)`));
            }
            continue;
          }
          if (!end) continue;
          f.check();
          const want = CARD_EXPECTED[p.cardOutcome];
          // A code only a list page could have shown is unknown: the status is judged alone then.
          const code = ledger.failureCodeOf(p.id);
          const ok = end.status === want.status && (want.code === null || code === undefined || code === want.code);
          if (!ok && !faulted(p.tStart, end.t)) {
            f.violation(ev(`payment ${p.id} with the "${p.cardOutcome}" card ended ${end.status}${end.status === 'failed' ? ` (${show(code)})` : ''}, expected ${want.status}${want.code ? ` with ${want.code}` : ''}`));
          }
        }
        return f.outcome('no test-mode Direct API payment with a sandbox card was seen settled');
      },
    };
  },
};
export default invariant;
