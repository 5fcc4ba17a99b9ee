import type { Finding } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { Findings } from '../lib/findings.ts';
import { lastUnsettled, settleEligible } from '../lib/settle.ts';

/**
 * SM-6: with no faults, a pending payment settles within the run's bound. Judged only
 * where it is certain: an observation that started more than the bound after the create
 * was answered and still showed the payment pending, with no fault window over its life.
 * Payments waiting on a customer (3DS, hosted) are not judged. When most judged payments never
 * settled at all, a `processor-unreachable` warning finding says so in one sentence.
 */
/**
 * One plain sentence for the commonest cause of many SM-6 violations: a deployment whose
 * processor cannot be reached (or never answers) leaves its payments pending for ever, which
 * otherwise reads as dozens of unrelated violations. Said when at least 3 payments, and at
 * least half of those judged, never left pending / processing with no fault window running.
 */
export function processorUnreachable(stuck: readonly { id: string; seq: number }[], judged: number): Finding | null {
  if (stuck.length < 3 || stuck.length * 2 < judged) return null;
  return {
    id: 'processor-unreachable',
    level: 'warning',
    text: `${stuck.length} of ${judged} payments never left pending and no fault was injected: the service's upstream processor looks unreachable or stalled.`,
    rules: ['SM-6'],
    evidence: { message: `payments still pending past the settle bound, never seen settled`, seqs: stuck.slice(0, 5).map((s) => s.seq), paymentIds: stuck.slice(0, 5).map((s) => s.id) },
  };
}

const invariant: Invariant = {
  id: 'settles-within-bound',
  title: 'With no faults, a pending payment settles within the bound set by the run',
  rules: ['SM-6'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const bound = ctx.settleBoundMs;
        const { ledger } = ctx;
        /** Judged payments that never left pending / processing although seen so past the bound. */
        const stuck: { id: string; seq: number }[] = [];
        for (const p of ledger.payments.values()) {
          if (!settleEligible(ctx, p)) continue;
          const late = lastUnsettled(ctx, p.id);
          const end = ledger.firstTerminalOf(p);
          const lateEnough = late.t > p.tEnd + bound;
          if (!end && !lateEnough) continue;
          const until = lateEnough ? late.t : end!.t;
          if (faultOverlapping(ledger.faults, p.tStart, until)) continue;
          f.check();
          if (lateEnough) {
            if (!end) stuck.push({ id: p.id, seq: late.seq });
            f.violation({ message: `payment ${p.id} was still pending ${Math.round((late.t - p.tEnd) / 100) / 10} s after its create was answered (bound ${bound / 1000} s, no fault)`, seqs: [p.seq, late.seq], times: [p.tEnd, late.t], paymentIds: [p.id], keys: [p.key] });
          }
        }
        const outcome = f.outcome('no payment outside fault windows was seen settled or seen pending past the bound');
        const diagnosis = processorUnreachable(stuck, f.checked);
        if (diagnosis) outcome.findings = [diagnosis];
        return outcome;
      },
    };
  },
};
export default invariant;
