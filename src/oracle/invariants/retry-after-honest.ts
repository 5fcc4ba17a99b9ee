import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { orderBy, resetToleranceMs, rowEvidence, serverOffsetOf } from '../lib/rate.ts';
import { retryAfterSlackMs } from '../../spec/tolerances.ts';

/**
 * RL-8. Retry-After is honest both ways:
 * - it does not overstate: the wait it asks for is at most a second longer than the time left in the window;
 * - it does not understate: a request sent after the wait is not refused for the same window.
 */
const invariant: Invariant = {
  id: 'retry-after-honest',
  title: 'Retry-After neither understates the wait (same window still refused) nor overstates it by more than a second',
  rules: ['RL-8'],
  readsRateTables: true,
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        // Our times moved into the server's clock (its Date headers), where X-RateLimit-Reset lives.
        const offset = serverOffsetOf(ctx).offsetMs;
        const sEpoch = (t: number) => ctx.epochMs(t) + offset;
        const tol = resetToleranceMs(ctx);
        const slack = retryAfterSlackMs(!!ctx.run?.target.embedded);
        for (const [key, c] of ctx.ledger.rateTables()) {
          const status = c.col('status');
          const ra = c.col('retryAfter');
          const reset = c.col('reset');
          const ts = c.col('tStart');
          const te = c.col('tEnd');
          const all = orderBy(c, 'tStart');
          for (let k = 0; k < all.length; k++) {
            const q = all[k];
            if (status[q] !== 429 || Number.isNaN(ra[q]) || Number.isNaN(reset[q])) continue;
            f.check();
            const left = reset[q] * 1000 - sEpoch(ts[q]);
            if (ra[q] * 1000 > left + 1000 + tol) {
              f.violation(rowEvidence(c, key, [q], `Retry-After ${ra[q]} s but the window resets in ${Math.max(0, Math.round(left / 100) / 10)} s`));
            }
            const waitedUntil = te[q] + ra[q] * 1000 + slack;
            for (let j = k + 1; j < all.length; j++) {
              const b = all[j];
              if (ts[b] < waitedUntil) continue;
              if (status[b] === 429 && reset[b] === reset[q]) {
                f.violation(rowEvidence(c, key, [q, b], `refused again in the same window (reset ${reset[q]}) ${Math.round((ts[b] - te[q]) / 100) / 10} s after Retry-After ${ra[q]} s`));
              }
              break;
            }
          }
        }
        return f.outcome('no 429 carried both Retry-After and X-RateLimit-Reset');
      },
    };
  },
};
export default invariant;
