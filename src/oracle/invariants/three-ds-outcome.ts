import type { Invariant } from '../types.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/**
 * SM-4: a completed 3DS challenge gives succeeded, a failed one failed with
 * three_d_secure_failed, and an abandoned one (never completed) expired.
 */
const invariant: Invariant = {
  id: 'three-ds-outcome',
  title: '3DS: completed gives succeeded, failed gives failed with three_d_secure_failed, abandoned gives expired',
  rules: ['SM-4'],
  create(ctx) {
    const f = new Findings();
    const completed = new Map<string, { result: 'success' | 'fail'; rec: Parameters<typeof evidence>[1][number] }>();
    const attempted = new Set<string>();
    return {
      kinds: ['exchange'],
      ops: ['complete_3ds'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'complete_3ds' || !rec.sent.paymentId) return;
        attempted.add(rec.sent.paymentId);
        // The sandbox answers 303 to return_url once the challenge is done.
        if (rec.sent.threeDsResult && rec.status >= 200 && rec.status < 400 && !completed.has(rec.sent.paymentId)) completed.set(rec.sent.paymentId, { result: rec.sent.threeDsResult, rec });
      },
      finish() {
        const { ledger } = ctx;
        for (const [id, c] of completed) {
          const end = ledger.firstTerminal(id);
          if (!end) continue;
          f.check();
          const code = ledger.failureCodes.get(id)?.code ?? null;
          if (c.result === 'success' && end.status !== 'succeeded') f.violation(evidence(`3DS completed successfully but payment ${id} ended ${end.status} ${show(code)}`, [c.rec], { seqs: [end.seq], paymentIds: [id] }));
          if (c.result === 'fail' && (end.status !== 'failed' || code !== 'three_d_secure_failed')) {
            f.violation(evidence(`3DS failed but payment ${id} ended ${end.status} ${show(code)} (expected failed with three_d_secure_failed)`, [c.rec], { seqs: [end.seq], paymentIds: [id] }));
          }
        }
        // Abandoned: waiting on a challenge, never completed.
        const challenged = new Set(ledger.threeDs);
        for (const p of ledger.payments.values()) if (p.cardOutcome === 'three_ds_challenge' && ledger.paymentSpans.seen(p.id, 'requires_action')) challenged.add(p.id);
        for (const id of challenged) {
          if (attempted.has(id)) continue;
          const end = ledger.firstTerminal(id);
          if (!end) continue;
          f.check();
          if (end.status !== 'expired') f.violation({ message: `abandoned 3DS challenge: payment ${id} ended ${end.status} ${show(ledger.failureCodes.get(id)?.code ?? null)} (expected expired)`, seqs: [end.seq], paymentIds: [id] });
        }
        return f.outcome('no 3DS challenge was completed, failed, or abandoned until the payment ended');
      },
    };
  },
};
export default invariant;
