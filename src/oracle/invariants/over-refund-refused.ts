import { REFUND_SUBCODE_PATTERN } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';
import { servedPath } from '../lib/refund-paths.ts';
import { refundEvidence, refundInconclusive, sameOwner } from '../lib/refunds.ts';

/**
 * REF-4: a refund certainly above the remaining refundable amount (the amount minus what was
 * certainly refunded before it was sent: the refunds seen succeeded with a known amount, or the
 * payment's own refunded total as last seen, whichever is larger) gets 422 action_not_allowed /
 * invalid_request_error. Any refund 422 whose message has brackets uses the form
 * `Refund validation failed [<sub_code>]: ...`.
 */
const invariant: Invariant = {
  id: 'over-refund-refused',
  title: 'A refund above the remaining refundable amount gives 422 action_not_allowed (message sub-code form when bracketed)',
  rules: ['REF-4'],
  create(ctx) {
    const f = new Findings();
    /**
     * Per payment, the refunded totals seen that a later one does not make redundant: [answer end,
     * total] pairs with both rising. All finish() asks is the largest total seen before a time, and
     * a total seen no earlier than a larger one never is it; every poll of a refunded payment was
     * kept before, and a soak polls its refunded payments all through.
     */
    const totals = new Map<string, [number, number][]>();
    return {
      answers: 'payments',
      onRecord(rec) {
        const o = observedPayment(rec);
        if (!o || o.kind !== 'exchange' || o.payment.amountRefunded === null || !(o.payment.amountRefunded > 0)) return;
        const l = totals.get(o.payment.id);
        // A list made with its first entry holds one slot, not the sixteen a first push makes room for.
        if (!l) totals.set(o.payment.id, [[o.tEnd, o.payment.amountRefunded]]);
        else keepRising(l, o.tEnd, o.payment.amountRefunded);
      },
      finish() {
        const { ledger } = ctx;
        for (const [pid, reqs] of ledger.refundRequests) {
          const amount = ledger.payments.get(pid)?.amount;
          for (const q of reqs) {
            if (q.status === 422 && typeof q.message === 'string' && q.message.includes('[')) {
              f.check();
              if (!REFUND_SUBCODE_PATTERN.test(q.message)) f.violation(refundEvidence(`refund 422 message ${JSON.stringify(q.message.slice(0, 80))} does not follow "Refund validation failed [<sub_code>]: ..."`, [q]));
            }
            if (q.badInput || !servedPath(ctx, q.path)) continue;
            if (q.amount === undefined || amount === undefined || amount === null || refundInconclusive(q) || !sameOwner(ctx, q)) continue;
            let used = 0;
            for (const r of ledger.refunds.refundsOf(pid)) if (r.amount !== null && ledger.refundSpans.firstEnd(r.key, 'succeeded').t < q.tStart) used += r.amount;
            // The refunded total only grows (succeeded refunds only): any total seen before the request is refunded for good.
            for (const [t, total] of totals.get(pid) ?? []) if (t < q.tStart && total > used) used = total;
            if (q.amount <= amount - used) continue;
            f.check();
            if (is2xx(q.status)) f.violation(refundEvidence(`refund of ${q.amount} accepted though at most ${amount - used} of ${amount} remained`, [q]));
            else if (q.status !== 422 || q.code !== 'action_not_allowed' || q.type !== 'invalid_request_error') {
              f.violation(refundEvidence(`refund of ${q.amount} with ${amount - used} remaining answered ${q.status} ${q.code} / ${q.type} (expected 422 action_not_allowed / invalid_request_error)`, [q]));
            }
          }
        }
        return f.outcome('no refund asked for more than certainly remained, and no refund was refused 422 with a bracketed message');
      },
    };
  },
};
/**
 * Adds total `v` seen at `t` to `l` (pairs by rising time, totals rising with them) unless a pair
 * seen no later holds at least as much, and drops the pairs it makes redundant (seen no earlier,
 * holding no more). The largest total of the pairs seen before any time is what it was with every pair kept.
 */
export function keepRising(l: [number, number][], t: number, v: number): void {
  let i = 0;
  while (i < l.length && l[i][0] <= t) i++;
  // l[i - 1] is the latest pair seen no later, and holds the most of those.
  if (i > 0 && l[i - 1][1] >= v) return;
  let j = i;
  while (j < l.length && l[j][1] <= v) j++;
  l.splice(i, j - i, [t, v]);
}
export default invariant;
