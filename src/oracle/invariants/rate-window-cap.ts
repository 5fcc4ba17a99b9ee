import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { densest, groupByReset, isCounted, limitOf, rowEvidence, windowMsOf } from '../lib/rate.ts';

/**
 * RL-1. The server says which window counted a request through X-RateLimit-Reset,
 * so answers sharing a reset value are one window. A window is judged when it
 * reached its limit (a 429 or as many answers as the limit); more answers than
 * the limit fail only if they also fit in one window's time (a reset value
 * reused across windows is RL-6's concern, not a reason to merge them here).
 */
const invariant: Invariant = {
  id: 'rate-window-cap',
  title: 'No fixed window of one key holds more non-429 responses than X-RateLimit-Limit',
  rules: ['RL-1'],
  readsRateTables: true,
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const W = windowMsOf(ctx);
        let fullest = 0;
        for (const [key, c] of ctx.ledger.rateTables()) {
          const status = c.col('status');
          const tStart = c.col('tStart');
          const tEnd = c.col('tEnd');
          for (const [reset, rows] of groupByReset(c)) {
            const limit = limitOf(c, rows, ctx);
            if (limit === undefined) continue;
            const counted = rows.filter((i) => isCounted(c, i));
            fullest = Math.max(fullest, counted.length / limit);
            if (counted.length < limit && !rows.some((i) => status[i] === 429)) continue;
            f.check();
            if (counted.length <= limit) continue;
            let maxLatency = 0;
            for (const i of counted) maxLatency = Math.max(maxLatency, tEnd[i] - tStart[i]);
            const sorted = counted; // groups come in start order
            const d = densest(c, sorted, W + maxLatency);
            if (d.count > limit) {
              f.violation(rowEvidence(c, key, sorted.slice(d.from, d.to + 1), `${d.count} requests of ${key} were let through in the window resetting at ${reset} (limit ${limit})`));
            }
          }
        }
        return f.outcome(`no key's window reached its limit (the fullest held ${Math.round(fullest * 100)}% of it)`);
      },
    };
  },
};
export default invariant;
