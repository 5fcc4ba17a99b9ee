import type { Invariant } from '../types.ts';
import { faultAt, faultOverlapping, lastHealBefore, pendingPastHeal } from '../lib/faults.ts';
import { Findings } from '../lib/findings.ts';
import { lastUnsettled, settleEligible } from '../lib/settle.ts';

/**
 * FT-2: after faults heal, every pending payment reaches a terminal status within the
 * run's bound. Violation: an observation still showing it pending that started more than
 * the bound after the last fault healed (and after its create), with no fault active then.
 */
const invariant: Invariant = {
  id: 'settles-after-heal',
  title: 'After faults heal, every pending payment reaches a terminal status within the bound',
  rules: ['FT-2'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const bound = ctx.settleBoundMs;
        const { ledger } = ctx;
        if (ledger.faults.length === 0) return f.outcome('the run injected no faults');
        for (const p of ledger.payments.values()) {
          if (!settleEligible(ctx, p)) continue;
          const late = lastUnsettled(ctx, p.id);
          const end = ledger.firstTerminalOf(p);
          const lastSeen = Math.max(late.t, end?.t ?? -Infinity, p.tEnd);
          if (!faultOverlapping(ledger.faults, p.tStart, lastSeen)) continue;
          if (late.t > -Infinity) {
            const healed = pendingPastHeal(ledger.faults, late.t, bound);
            if (healed !== null && late.t - p.tEnd > bound) {
              f.check();
              f.violation({ message: `payment ${p.id} was still pending ${Math.round((late.t - healed) / 100) / 10} s after the faults healed (bound ${bound / 1000} s, --settle-bound: a deployment whose processor retries back off longer after an outage declares a longer one)`, seqs: [p.seq, late.seq], times: [healed, late.t], paymentIds: [p.id], keys: [p.key] });
              continue;
            }
          }
          // Settled after the last heal it lived through: the rule held for it.
          if (end && !faultAt(ledger.faults, end.t) && lastHealBefore(ledger.faults, end.t) > p.tStart - bound) f.check();
        }
        return f.outcome('no payment lived through a fault and was seen settled (or still pending) after it healed');
      },
    };
  },
};
export default invariant;
