import { TERMINAL_STATUSES } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';

/** SM-2: succeeded, failed, expired and canceled never change (refunds leave a succeeded payment succeeded). */
const invariant: Invariant = {
  id: 'terminal-is-final',
  title: 'Terminal statuses never change; refunds leave a succeeded payment succeeded',
  rules: ['SM-2'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const spans = ctx.ledger.paymentSpans;
        for (const id of spans.ids()) {
          const first = ctx.ledger.firstTerminal(id);
          if (!first) continue;
          // Exercised when the payment was seen again after it was seen terminal.
          if (spans.observed(id).some((s) => spans.lastStart(id, s).t > first.t)) f.check();
          const bad = spans.orderedPairs(id).find((p) => TERMINAL_STATUSES.has(p.from) && p.to !== p.from);
          if (bad) f.violation({ message: `payment ${id} was ${bad.from}, then ${bad.to}`, seqs: [bad.fromSeq, bad.toSeq], times: [bad.fromEnd, bad.toStart], paymentIds: [id] });
        }
        return f.outcome('no payment was seen again after it was seen in a terminal status');
      },
    };
  },
};
export default invariant;
