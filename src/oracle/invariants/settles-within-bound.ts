import type { Invariant } from '../types.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { Findings } from '../lib/findings.ts';
import { lastUnsettled, settleEligible } from '../lib/settle.ts';

/**
 * SM-6: with no faults, a pending payment settles within the run's bound. Judged only
 * where it is certain: an observation that started more than the bound after the create
 * was answered and still showed the payment pending, with no fault window over its life.
 * Payments waiting on a customer (3DS, hosted) are not judged.
 */
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
        for (const p of ledger.payments.values()) {
          if (!settleEligible(ctx, p)) continue;
          const late = lastUnsettled(ctx, p.id);
          const end = ledger.firstTerminal(p.id);
          const lateEnough = late.t > p.tEnd + bound;
          if (!end && !lateEnough) continue;
          const until = lateEnough ? late.t : end!.t;
          if (faultOverlapping(ledger.faults, p.tStart, until)) continue;
          f.check();
          if (lateEnough) {
            f.violation({ message: `payment ${p.id} was still pending ${Math.round((late.t - p.tEnd) / 100) / 10} s after its create was answered (bound ${bound / 1000} s, no fault)`, seqs: [p.seq, late.seq], times: [p.tEnd, late.t], paymentIds: [p.id], keys: [p.key] });
          }
        }
        return f.outcome('no payment outside fault windows was seen settled or seen pending past the bound');
      },
    };
  },
};
export default invariant;
