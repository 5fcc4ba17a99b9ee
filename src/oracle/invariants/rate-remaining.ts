import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { groupByReset, isCounted, limitOf, rowEvidence, sortBy } from '../lib/rate.ts';

/**
 * RL-5. Within one window (one reset value) every counted request takes one from
 * X-RateLimit-Remaining: the value is never negative, two counted requests never
 * get the same value, and a request sent after another was answered gets a lower one.
 * Requests in flight together may be counted in either order, so they are not compared.
 */
const invariant: Invariant = {
  id: 'rate-remaining',
  title: 'X-RateLimit-Remaining is never negative and falls by one per counted request within a window',
  rules: ['RL-5'],
  readsRateTables: true,
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        for (const [key, c] of ctx.ledger.rateTables()) {
          const rem = c.col('remaining');
          const ts = c.col('tStart');
          const te = c.col('tEnd');
          for (let i = 0; i < c.length; i++) {
            if (rem[i] < 0) f.violation(rowEvidence(c, key, [i], `X-RateLimit-Remaining ${rem[i]} is negative`));
          }
          for (const [reset, rows] of groupByReset(c)) {
            const counted = rows.filter((i) => isCounted(c, i) && !Number.isNaN(rem[i]));
            if (counted.length < 2) continue;
            f.check(counted.length);
            const limit = limitOf(c, counted, ctx);
            // A window's values are almost always distinct: a sorted copy says so without a Map per window.
            const values = new Float64Array(counted.length);
            for (let k = 0; k < counted.length; k++) values[k] = rem[counted[k]];
            values.sort();
            let repeats = false;
            for (let k = 1; k < values.length && !repeats; k++) repeats = values[k] === values[k - 1];
            const seen = repeats ? new Map<number, number>() : null;
            for (const i of counted) {
              if (limit !== undefined && rem[i] > limit) f.violation(rowEvidence(c, key, [i], `X-RateLimit-Remaining ${rem[i]} exceeds the limit ${limit}`));
              if (seen === null) continue;
              const prev = seen.get(rem[i]);
              if (prev !== undefined) f.violation(rowEvidence(c, key, [prev, i], `two counted requests of ${key} both got X-RateLimit-Remaining ${rem[i]} in the window resetting at ${reset}`));
              else seen.set(rem[i], i);
            }
            // Sweep by start; fold in every request that ended before this one started.
            const byStart = counted; // groups come in start order
            const byEnd = sortBy(c, counted, 'tEnd');
            let e = 0;
            let minRem = Infinity;
            let minRow = -1;
            for (const b of byStart) {
              while (e < byEnd.length && te[byEnd[e]] < ts[b]) {
                if (rem[byEnd[e]] < minRem) (minRem = rem[byEnd[e]]), (minRow = byEnd[e]);
                e++;
              }
              if (minRow >= 0 && rem[b] >= minRem && rem[b] !== rem[minRow]) {
                f.violation(rowEvidence(c, key, [minRow, b], `X-RateLimit-Remaining rose from ${minRem} to ${rem[b]} for a request sent after the first was answered (window resetting at ${reset})`));
              }
            }
          }
        }
        return f.outcome('no window of any key held two counted answers with X-RateLimit-Remaining');
      },
    };
  },
};
export default invariant;
