import type { Finding } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { groupByReset, isCounted, limitOf, orderBy, resetToleranceMs, rowEvidence, serverOffsetOf, unplacedRows, windowMsOf } from '../lib/rate.ts';

/**
 * RL-1 from below, with RL-7 ("over the limit: 429"): a 429 means the window's limit was
 * reached, so in a window (one X-RateLimit-Reset value) where a key got 429, at least
 * X-RateLimit-Limit of its requests were counted before it. Counted before the first 429 (by
 * when its answer came): answers of that window that were not 429 and were sent before the 429's
 * answer arrived (in flight counts: the server may have taken them first), plus requests with no
 * answer or no reset header that overlapped the window. Catches a limit off by one low, a limit
 * lower than the header says, and a window whose count carries over.
 *
 * Only on keys the run owns: another client on the key spends the same budget unseen, so on a
 * key marked shared (`--shared-key`, run record `keys[].shared`) a shortfall is an observation.
 * A window that may have opened before the key's first request of the run (another run's
 * traffic) is judged only when an answer in it says the window was fresh
 * (X-RateLimit-Remaining = limit - 1). A window whose answers are certainly interleaved with
 * answers of another reset value has no constant reset (a sliding or moving window): RL-2 and
 * RL-6 judge that, and the window is not counted here.
 */
const invariant: Invariant = {
  id: 'rate-no-early-429',
  title: 'A 429 comes only after X-RateLimit-Limit requests of the key were counted in the window',
  rules: ['RL-1', 'RL-7'],
  readsRateTables: true,
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const W = windowMsOf(ctx);
        const tol = resetToleranceMs(ctx);
        const offset = serverOffsetOf(ctx).offsetMs;
        const sEpoch = (t: number) => ctx.epochMs(t) + offset;
        const observed: Finding[] = [];
        let sharedWindows = 0;
        for (const [key, c] of ctx.ledger.rateTables()) {
          const shared = ctx.keys.get(key)?.shared === true;
          const status = c.col('status');
          const remaining = c.col('remaining');
          const reset = c.col('reset');
          const tStart = c.col('tStart');
          const tEnd = c.col('tEnd');
          const byStart = orderBy(c, 'tStart');
          /** Whether an answer of another reset value certainly came between rows a (answered) and b (sent). */
          const interleaved = (R: number, a: number, b: number): boolean => {
            let lo = 0, hi = byStart.length;
            while (lo < hi) {
              const mid = (lo + hi) >> 1;
              if (tStart[byStart[mid]] <= tEnd[a]) lo = mid + 1;
              else hi = mid;
            }
            for (let k = lo; k < byStart.length && tStart[byStart[k]] < tStart[b]; k++) {
              const i = byStart[k];
              if (!Number.isNaN(reset[i]) && reset[i] !== R && tEnd[i] < tStart[b]) return true;
            }
            return false;
          };
          const unplaced = unplacedRows(c);
          let keyStart = Infinity;
          for (let i = 0; i < c.length; i++) if (tStart[i] < keyStart) keyStart = tStart[i];
          // The latest the key's first request may truly have been sent (rows span a merged shard's clock slack).
          keyStart += 2 * ctx.ledger.rateSlackMs(key);
          for (const [R, rows] of groupByReset(c)) {
            let q = -1;
            for (const i of rows) if (status[i] === 429 && (q < 0 || tEnd[i] < tEnd[q])) q = i;
            if (q < 0) continue;
            const limit = limitOf(c, rows, ctx);
            if (limit === undefined) continue;
            const opened = R * 1000 - W; // per the server; the true start is up to a second before (R is rounded up)
            const fresh = rows.some((i) => isCounted(c, i) && remaining[i] === limit - 1);
            if (!fresh && opened - 1000 - tol < sEpoch(keyStart)) continue;
            let first = rows[0];
            for (const i of rows) if (tEnd[i] < tEnd[first]) first = i;
            if (interleaved(R, first, q)) continue;
            let before = 0;
            for (const i of rows) if (isCounted(c, i) && tStart[i] < tEnd[q]) before++;
            for (const i of unplaced) {
              if (tStart[i] < tEnd[q] && sEpoch(tEnd[i]) >= opened - 1000 - tol && sEpoch(tStart[i]) <= R * 1000 + tol) before++;
            }
            if (shared) {
              sharedWindows++;
              if (before < limit && observed.length === 0) {
                observed.push({
                  id: 'rate-early-429-shared-key',
                  level: 'observation',
                  text: `${key} got 429 after ${before} of the run's requests in the window resetting at ${R} (limit ${limit}); the key is marked shared (--shared-key), so other clients' requests may explain it, and it was not judged.`,
                  rules: ['RL-1', 'RL-7'],
                  evidence: rowEvidence(c, key, [q], `first 429 of the window resetting at ${R}`),
                });
              }
              continue;
            }
            f.check();
            if (before < limit) {
              f.violation(rowEvidence(c, key, [q], `${key} got 429 after only ${before} counted request(s) in the window resetting at ${R}, below its X-RateLimit-Limit ${limit}`));
            }
          }
        }
        const out = f.outcome(
          sharedWindows > 0
            ? `only keys marked shared (--shared-key) got 429 (${sharedWindows} window(s), observed only)`
            : 'no key of the run got 429 in a window known to have started with the run',
        );
        if (observed.length) out.findings = observed;
        return out;
      },
    };
  },
};
export default invariant;
