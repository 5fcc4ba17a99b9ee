import { LIMITS } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { countedByStart, limitOf, rowEvidence, windowMsOf } from '../lib/rate.ts';

/**
 * RL-3. A fixed window lets bursts across a boundary reach about twice the limit,
 * never more. Counted here are only answers certainly inside one span: a request
 * was handled somewhere in [tStart, tEnd], so requests starting at or after s and
 * ending by s + window certainly fell in that span.
 */
const invariant: Invariant = {
  id: 'rate-burst-cap',
  title: 'No span of one window length holds more than twice the limit of non-429 responses for one key',
  rules: ['RL-3'],
  readsRateTables: true,
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const W = windowMsOf(ctx);
        for (const [key, c] of ctx.ledger.rateTables()) {
          const sorted = countedByStart(c);
          const limit = limitOf(c, sorted, ctx);
          if (limit === undefined || sorted.length <= limit) continue;
          const ts = c.col('tStart');
          const te = c.col('tEnd');
          let maxLatency = 0;
          for (const i of sorted) maxLatency = Math.max(maxLatency, te[i] - ts[i]);
          let best = { count: 0, lo: 0, hi: 0 };
          let hi = 0;
          for (let lo = 0; lo < sorted.length; lo++) {
            const until = ts[sorted[lo]] + W;
            if (hi < lo) hi = lo;
            while (hi + 1 < sorted.length && ts[sorted[hi + 1]] <= until) hi++;
            // Of the requests starting in [s, s+W], those still running at s+W may have been handled after it.
            let count = hi - lo + 1;
            for (let j = hi; j >= lo && ts[sorted[j]] > until - maxLatency; j--) if (te[sorted[j]] > until) count--;
            if (count > best.count) best = { count, lo, hi };
          }
          if (best.count <= limit) continue;
          f.check();
          if (best.count > LIMITS.burstFactor * limit) {
            f.violation(rowEvidence(c, key, sorted.slice(best.lo, best.hi + 1), `${best.count} requests of ${key} were let through within ${W / 1000} s (limit ${limit}, at most ${LIMITS.burstFactor * limit} across a boundary)`));
          }
        }
        return f.outcome('no key had more answers than its limit within one window length (no burst across a boundary)');
      },
    };
  },
};
export default invariant;
