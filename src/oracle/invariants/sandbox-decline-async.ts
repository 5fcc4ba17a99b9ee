import { CARD_EXPECTED } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { errorCode, is2xx, isInconclusive } from '../lib/exchange.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

const DECLINES = new Set(['do_not_honor', 'insufficient_funds']);
/** What a create with a decline card may answer in test mode (presentation A may already say FAILED). */
const ALLOWED: Record<'A' | 'B', Set<string>> = { A: new Set(['pending', 'processing', 'failed']), B: new Set(['pending']) };

/**
 * TEST-1: in test mode the sandbox decline cards give 201 (pending; presentation A may
 * already answer FAILED), never a synchronous 422, and later the payment is failed with
 * the decline reason.
 */
const invariant: Invariant = {
  id: 'sandbox-decline-async',
  title: 'Test mode: decline cards give 201 pending and later failed with the decline reason, never a synchronous 422',
  rules: ['TEST-1'],
  create(ctx) {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['create'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'create' || !DECLINES.has(rec.sent.cardOutcome ?? '') || rec.sent.badInput) return;
        if (ctx.keys.get(rec.key)?.mode !== 'test' || isInconclusive(rec) || [401, 403, 409].includes(rec.status)) return;
        f.check();
        if (rec.status === 422) return f.violation(evidence(`test-mode create with the "${rec.sent.cardOutcome}" card was declined synchronously (422 ${show(errorCode(rec))})`, [rec]));
        if (!is2xx(rec.status) || !rec.payment) return f.violation(evidence(`test-mode create with the "${rec.sent.cardOutcome}" card answered ${rec.status}`, [rec]));
        if (!ALLOWED[rec.payment.presentation].has(rec.payment.status)) f.violation(evidence(`test-mode create with the "${rec.sent.cardOutcome}" card answered status ${rec.payment.wireStatus}`, [rec]));
      },
      finish() {
        const { ledger } = ctx;
        for (const p of ledger.payments.values()) {
          if (p.mode !== 'test' || p.hosted || !DECLINES.has(p.cardOutcome ?? '')) continue;
          const end = ledger.firstTerminalOf(p);
          if (!end) continue;
          // A code only a list page could have shown is unknown: the status is judged alone then.
          const code = ledger.failureCodeOf(p.id);
          const want = CARD_EXPECTED[p.cardOutcome!].code;
          if ((end.status !== 'failed' || (code !== undefined && code !== want)) && !faultOverlapping(ledger.faults, p.tStart, end.t)) {
            f.violation({ message: `payment ${p.id} with the "${p.cardOutcome}" card ended ${end.status} ${show(code)} (expected failed with ${want})`, seqs: [p.seq, end.seq], paymentIds: [p.id], keys: [p.key] });
          }
        }
        return f.outcome('no test-mode create used a sandbox decline card');
      },
    };
  },
};
export default invariant;
