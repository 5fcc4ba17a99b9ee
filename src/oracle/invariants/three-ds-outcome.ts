import type { Invariant } from '../types.ts';
import { Findings, evidence, evidenceRec, show, type KeptExchange } from '../lib/findings.ts';
import { passedRequiresAction } from '../lib/implied-states.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { THREE_DS_TIMEOUT_CODE } from '../../spec/index.ts';
import type { ExchangeRecord } from '../../history/index.ts';

/**
 * SM-4: a completed 3DS challenge gives succeeded, a failed one failed with
 * three_d_secure_failed, and an abandoned one (never completed) expired (or canceled, or failed
 * with three_d_secure_timeout: see abandonedEnding). A completion sent after the payment ended,
 * or, with a declared time-out, after it may have run out and the payment expired, decided
 * nothing and is not judged.
 *
 * An abandoned challenge that never ends: the spec does not give the 3DS time-out, so it is
 * judged only when the run declares it (`run.challengeTimeoutMs`: the embedded service's own,
 * or `--challenge-timeout`). Then a Direct API payment seen requires_action longer than the
 * time-out plus the settle bound after it was first seen waiting on its challenge has not
 * expired: a violation. The time runs from the end of the first requires_action observation
 * (the challenge was open by then at the latest) to the start of the last one (still open then
 * at the earliest), so it never overstates. Hosted payments are left out: their page lifetime,
 * not the challenge time-out, may be what is running.
 */
/**
 * How an abandoned challenge may end: expired (the state table's time-out), canceled (allowed
 * from any non-terminal status; its trigger is not shown), or failed with
 * three_d_secure_timeout (the decline-code table: "Customer did not complete in time").
 */
export function abandonedEnding(status: string, code: string | null): boolean {
  return status === 'expired' || status === 'canceled' || (status === 'failed' && code === THREE_DS_TIMEOUT_CODE);
}

const invariant: Invariant = {
  id: 'three-ds-outcome',
  title: '3DS: completed gives succeeded, failed gives failed with three_d_secure_failed, abandoned gives expired',
  rules: ['SM-4'],
  create(ctx) {
    const f = new Findings();
    const completed = new Map<string, { result: 'success' | 'fail'; rec: KeptExchange }>();
    const attempted = new Set<string>();
    return {
      kinds: ['exchange'],
      ops: ['complete_3ds'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'complete_3ds' || !rec.sent.paymentId) return;
        attempted.add(rec.sent.paymentId);
        // The sandbox answers 303 to return_url once the challenge is done.
        if (rec.sent.threeDsResult && rec.status >= 200 && rec.status < 400 && !completed.has(rec.sent.paymentId)) completed.set(rec.sent.paymentId, { result: rec.sent.threeDsResult, rec: evidenceRec(rec) });
      },
      finish() {
        const { ledger } = ctx;
        const timeout = ctx.run?.challengeTimeoutMs;
        for (const [id, c] of completed) {
          const end = ledger.firstTerminal(id);
          if (!end) continue;
          // A completion sent once the payment had surely ended completed nothing (a sandbox page
          // may still redirect to return_url, which never proves payment).
          if (end.t <= c.rec.tStart) continue;
          // Sent when the challenge may already have timed out: an expired payment is the time-out winning the race.
          const createdAt = ledger.payments.get(id)?.tStart;
          if (end.status === 'expired' && timeout !== undefined && createdAt !== undefined && c.rec.tStart >= createdAt + timeout) continue;
          // A fault between the completion and the end may have decided the outcome (as SM-3, PAY-16 and TEST-3 excuse).
          if (faultOverlapping(ledger.faults, c.rec.tStart, end.t)) continue;
          f.check();
          // A code only a list page could have shown is unknown: the status is judged alone then.
          const code = ledger.failureCodeOf(id);
          if (c.result === 'success' && end.status !== 'succeeded') f.violation(evidence(`3DS completed successfully but payment ${id} ended ${end.status} ${show(code)}`, [c.rec], { seqs: [end.seq], paymentIds: [id] }));
          if (c.result === 'fail' && (end.status !== 'failed' || (code !== undefined && code !== 'three_d_secure_failed'))) {
            f.violation(evidence(`3DS failed but payment ${id} ended ${end.status} ${show(code)} (expected failed with three_d_secure_failed)`, [c.rec], { seqs: [end.seq], paymentIds: [id] }));
          }
        }
        // Abandoned: waiting on a challenge, never completed.
        const challenged = new Set(ledger.threeDs);
        // A 3DS card's challenge may time out before any poll sees it: ending expired (or failed
        // three_d_secure_*) shows it was open (lib/implied-states.ts), and it was abandoned.
        for (const p of ledger.payments.values()) if (p.cardOutcome === 'three_ds_challenge' && !p.hosted && passedRequiresAction(ctx, p.id)) challenged.add(p.id);
        for (const id of challenged) {
          if (attempted.has(id)) continue;
          const end = ledger.firstTerminal(id);
          if (!end) {
            if (timeout === undefined || ledger.payments.get(id)?.hosted !== false) continue;
            const first = ledger.paymentSpans.firstEnd(id, 'requires_action');
            const last = ledger.paymentSpans.lastStart(id, 'requires_action');
            if (!Number.isFinite(first.t) || !Number.isFinite(last.t)) continue;
            const waited = last.t - first.t;
            const bound = timeout + ctx.settleBoundMs;
            if (waited <= bound) continue;
            f.check();
            f.violation({
              message: `abandoned 3DS challenge: payment ${id} was still requires_action ${Math.round(waited / 100) / 10} s after it was first seen waiting on the challenge (time-out ${Math.round(timeout / 100) / 10} s + settle bound ${Math.round(ctx.settleBoundMs / 100) / 10} s); it should have expired`,
              seqs: [first.seq, last.seq],
              paymentIds: [id],
            });
            continue;
          }
          f.check();
          const code = ledger.failureCodeOf(id);
          // Failed with a code no full representation showed: maybe three_d_secure_timeout, not judged.
          if (end.status === 'failed' && code === undefined) continue;
          if (!abandonedEnding(end.status, code ?? null)) f.violation({ message: `abandoned 3DS challenge: payment ${id} ended ${end.status} ${show(code)} (expected expired)`, seqs: [end.seq], paymentIds: [id] });
        }
        return f.outcome(
          timeout === undefined
            ? 'no 3DS challenge was completed, failed, or abandoned until the payment ended (the 3DS time-out is unknown, so a challenge that never ends is not judged; pass --challenge-timeout)'
            : 'no 3DS challenge was completed, failed, or abandoned until the payment ended or well past the 3DS time-out',
        );
      },
    };
  },
};
export default invariant;
