import type { Invariant } from '../types.ts';
import { faultOverlapping, pendingPastHeal } from '../lib/faults.ts';
import { Findings } from '../lib/findings.ts';
import { firstByRefundRow } from '../lib/refunds.ts';

/**
 * REF-1 ("starting pending and ending succeeded or failed"): a refund that never ends is stranded
 * money. The spec gives refunds no time bound ("usually within seconds" is said of payments), so a
 * refund seen ending succeeded or failed keeps the rule however long it took; one never seen
 * ending is a violation when it was still seen pending more than the run's settle bound after it
 * was made, with no fault window over that span. Judged where refund statuses are visible
 * (presentation B's `refunds`, refund answers, refund events). A fault over the refund's life
 * excuses the bound, but not for ever: still pending more than the bound after the faults healed
 * (and never seen ending) is stranded money too (as FT-2 holds payments).
 */
const invariant: Invariant = {
  id: 'refund-settles',
  title: 'A refund ends succeeded or failed: with no faults, none is still pending past the settle bound without ever ending',
  rules: ['REF-1'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const bound = ctx.settleBoundMs;
        const { ledger } = ctx;
        // When each refund was accepted (the first answer naming it), by its row (none where no request was answered with its id).
        const accepted = firstByRefundRow(ledger, (q) => q.tEnd);
        /**
         * When the refund's request was sent: a refund is made while its request is in flight, so a
         * fault excuses from there. Its own request (answered with its id), or one to its payment that
         * got no answer (a timed-out attempt may have made it), sent within the bound before it was first seen.
         */
        const sentAt = (key: string, paymentId: string | undefined, born: number): number => {
          let t = born;
          for (const q of (paymentId && ledger.refundRequests.get(paymentId)) || []) {
            if ((ledger.refundKeyOfRequest(q) === key || q.status === 0) && q.tStart < t && q.tStart >= born - bound) t = q.tStart;
          }
          return t;
        };
        const spans = ledger.refundSpans;
        for (const key of spans.ids()) {
          const r = ledger.refunds.get(key);
          const id = r?.id ?? key;
          if (!spans.seen(key, 'pending')) continue;
          const born = Math.min(r && accepted.has[r.row] ? accepted.value[r.row] : Infinity, spans.firstEnd(key, 'pending').t);
          if (!Number.isFinite(born)) continue;
          const late = spans.lastStart(key, 'pending');
          const settled = spans.seen(key, 'succeeded') || spans.seen(key, 'failed');
          // Seen ending: the rule held, however late (no bound is given for refunds).
          const lateEnough = !settled && late.t > born + bound;
          if (!settled && !lateEnough) continue;
          const until = lateEnough ? late.t : Math.min(spans.firstEnd(key, 'succeeded').t, spans.firstEnd(key, 'failed').t);
          if (faultOverlapping(ledger.faults, sentAt(key, r?.paymentId, born), until)) {
            // A fault excuses a slow refund, not a stranded one: as FT-2 holds payments, a refund still
            // pending more than the bound after the faults healed (and after it was made) is a violation.
            const healed = lateEnough ? pendingPastHeal(ledger.faults, late.t, bound) : null;
            if (healed !== null) {
              f.check();
              f.violation({
                message: `refund ${id}${r?.paymentId ? ` of payment ${r.paymentId}` : ''} was still pending ${Math.round((late.t - healed) / 100) / 10} s after the faults healed (bound ${bound / 1000} s)`,
                seqs: [r?.firstSeq ?? late.seq, late.seq],
                times: [healed, late.t],
                ...(r?.paymentId ? { paymentIds: [r.paymentId] } : {}),
              });
            }
            continue;
          }
          f.check();
          if (lateEnough) {
            f.violation({
              message: `refund ${id}${r?.paymentId ? ` of payment ${r.paymentId}` : ''} was still pending ${Math.round((late.t - born) / 100) / 10} s after it was made (bound ${bound / 1000} s, no fault)`,
              seqs: [r?.firstSeq ?? late.seq, late.seq],
              times: [born, late.t],
              ...(r?.paymentId ? { paymentIds: [r.paymentId] } : {}),
            });
          }
        }
        return f.outcome('no refund was seen settle, or seen pending past the settle bound, outside fault windows');
      },
    };
  },
};
export default invariant;
