import { TERMINAL_STATUSES, type PaymentStatus } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { servedPath } from '../lib/refund-paths.ts';
import { amountRequiredRefusal, refundEvidence, refundInconclusive, sameOwner } from '../lib/refunds.ts';

/**
 * REF-5: refunding a payment that is certainly not succeeded when asked gets 422
 * action_not_allowed. Certainly not succeeded: seen in another terminal status before
 * the request, or seen still unsettled after it was answered.
 */
const invariant: Invariant = {
  id: 'refund-requires-succeeded',
  title: 'A refund of a payment that is not succeeded gives 422 action_not_allowed',
  rules: ['REF-5'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const spans = ctx.ledger.paymentSpans;
        for (const [pid, reqs] of ctx.ledger.refundRequests) {
          const seen = spans.observed(pid);
          for (const q of reqs) {
            // A path the service does not serve answers 404/405 whatever the payment (judged on served paths alone).
            if (refundInconclusive(q) || amountRequiredRefusal(q) || !sameOwner(ctx, q) || !servedPath(ctx, q.path)) continue;
            let why: { status: PaymentStatus; seq: number } | null = null;
            for (const s of seen) {
              if (s === 'succeeded') continue;
              if (TERMINAL_STATUSES.has(s) && spans.firstEnd(pid, s).t < q.tStart) why = { status: s, seq: spans.firstEnd(pid, s).seq };
              else if (!TERMINAL_STATUSES.has(s) && spans.lastStart(pid, s).t > q.tEnd) why = { status: s, seq: spans.lastStart(pid, s).seq };
              if (why) break;
            }
            if (!why) continue;
            f.check();
            if (q.status !== 422 || q.code !== 'action_not_allowed') {
              f.violation(refundEvidence(`refund of payment ${pid}, which was ${why.status}, answered ${q.status} ${q.code} (expected 422 action_not_allowed)`, [q], [why.seq]));
            }
          }
        }
        return f.outcome('no refund was asked of a payment certainly not succeeded at the time');
      },
    };
  },
};
export default invariant;
