import { TERMINAL_STATUSES, isAllowedTransition } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';

/**
 * SM-1: every pair of observations of one payment that are certainly ordered (one ended
 * before the other started) follows the transition table (src/spec/statuses.ts). Moves out
 * of a terminal status are SM-2's.
 */
const invariant: Invariant = {
  id: 'status-transitions',
  title: 'Every status sequence observed for one payment follows the transition table',
  rules: ['SM-1'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const spans = ctx.ledger.paymentSpans;
        for (const id of spans.ids()) {
          const pairs = spans.orderedPairs(id);
          if (pairs.length === 0) continue;
          f.check();
          const bad = pairs.find((p) => !TERMINAL_STATUSES.has(p.from) && !isAllowedTransition(p.from, p.to));
          if (bad) f.violation({ message: `payment ${id} moved ${bad.from} -> ${bad.to}, which the transition table does not allow`, seqs: [bad.fromSeq, bad.toSeq], times: [bad.fromEnd, bad.toStart], paymentIds: [id] });
        }
        return f.outcome('no payment was seen in two different statuses');
      },
    };
  },
};
export default invariant;
