import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { groupByReset, isCounted, limitOf, resetToleranceMs, rowEvidence, serverOffsetOf, unplacedRows, windowMsOf } from '../lib/rate.ts';

/**
 * RL-2 and RL-6 (constant within a window). For one key, windows in the order of
 * their reset values must:
 * - never go back: an answer with a later reset was not sent before one with an earlier reset;
 * - lie a full window apart: a new reset value before the old window ended means it slid or restarted;
 * - start at a request: reset - window is when the window opened, which must lie between the
 *   earliest request that could have opened it and our first answer inside it (on a key marked
 *   shared, `--shared-key`, only the latter: another client's request may have opened it).
 *   The key's first window may have opened before the run (another run's traffic), so it is held
 *   to this only when its answers show it fresh: X-RateLimit-Remaining limit - 1 (or the limit,
 *   from a service that reports it before counting the request).
 */
const invariant: Invariant = {
  id: 'rate-window-fixed',
  title: 'The rate window is fixed: it starts at a request, lasts the window length and is not restarted',
  rules: ['RL-2', 'RL-6'],
  readsRateTables: true,
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        // Our times moved into the server's clock (its Date headers), where X-RateLimit-Reset lives.
        const offset = serverOffsetOf(ctx).offsetMs;
        const sEpoch = (t: number) => ctx.epochMs(t) + offset;
        const W = windowMsOf(ctx);
        const tol = resetToleranceMs(ctx);
        const gapSlack = ctx.run?.target.embedded ? 0 : 1000;
        for (const [key, c] of ctx.ledger.rateTables()) {
          const shared = ctx.keys.get(key)?.shared === true;
          const tStart = c.col('tStart');
          const tEnd = c.col('tEnd');
          const groups = [...groupByReset(c)].sort((a, b) => a[0] - b[0]);
          const unplaced = unplacedRows(c);
          const span = groups.map(([R, rows]) => {
            let minStart = Infinity, minEnd = Infinity, maxStart = -Infinity, first = rows[0], last = rows[0];
            for (const i of rows) {
              if (tStart[i] < minStart) (minStart = tStart[i]), (first = i);
              if (tEnd[i] < minEnd) minEnd = tEnd[i];
              if (tStart[i] > maxStart) (maxStart = tStart[i]), (last = i);
            }
            return { R, rows, minStart, minEnd, maxStart, first, last };
          });
          let keyStart = Infinity;
          for (let i = 0; i < c.length; i++) if (tStart[i] < keyStart) keyStart = tStart[i];
          // A service that reports X-RateLimit-Remaining before counting the request answers a fresh
          // window's first request with the limit itself; one that counts first, with limit - 1.
          // limit - 1 means fresh only with proof the service counts first: a counted (non-429)
          // answer with Remaining 0, which one reporting before counting never sends. Without
          // either proof only Remaining = limit shows a window fresh.
          const limitCol = c.col('limit');
          const remaining = c.col('remaining');
          const status = c.col('status');
          let reportsBeforeCounting = false;
          let countsFirst = false;
          for (let i = 0; i < c.length; i++) {
            if (!isCounted(c, i)) continue;
            if (remaining[i] >= limitCol[i]) reportsBeforeCounting = true;
            else if (remaining[i] === 0 && status[i] !== 429) countsFirst = true;
          }
          for (let b = 0; b < span.length; b++) {
            const g = span[b];
            const opened = g.R * 1000 - W; // epoch ms the window began, per the server
            // Crossing from one window to the next is what exercises the rule.
            if (b > 0) f.check();
            // It must have begun by the time our first answer inside it came back.
            if (opened > sEpoch(g.minEnd) + tol) {
              f.violation(rowEvidence(c, key, [g.first], `window resetting at ${g.R} began ${Math.round((opened - sEpoch(g.minEnd)) / 1000)} s after a request it counted was answered (window ${W / 1000} s)`));
            }
            if (b === 0) {
              // The key's first window: when its answers show it fresh (nothing was counted in it
              // before the run's requests), it opened at one of them, so not before the earliest
              // that could have been counted in it (a window aligned to the clock fails here). On a
              // key other clients also use (--shared-key) one of theirs may have opened it.
              if (shared) continue;
              const limit = limitOf(c, g.rows, ctx);
              if (limit === undefined) continue;
              const freshFrom = countsFirst && !reportsBeforeCounting ? limit - 1 : limit;
              const freshRow = g.rows.find((i) => isCounted(c, i) && remaining[i] >= freshFrom);
              if (freshRow === undefined) continue;
              f.check();
              // Requests that say nothing of their window (no answer, no reset) may have opened it.
              let opener = g.minStart;
              for (const i of unplaced) {
                if (tStart[i] < opener && sEpoch(tEnd[i]) + tol >= opened) opener = tStart[i];
              }
              if (opened < sEpoch(opener) - tol) {
                f.violation(
                  rowEvidence(
                    c,
                    key,
                    [g.first, freshRow],
                    `window resetting at ${g.R} began ${Math.round((sEpoch(opener) - opened) / 100) / 10} s before the first request of ${key} it counted, yet it was fresh (X-RateLimit-Remaining ${remaining[freshRow]}, limit ${limit}): it should start at that request, not earlier (window ${W / 1000} s)`,
                  ),
                );
              }
              continue;
            }
            const a = span[b - 1];
            // Never back: an answer of the later window came back before one of the earlier was sent.
            if (g.minEnd < a.maxStart) {
              f.violation(rowEvidence(c, key, [g.first, a.last], `X-RateLimit-Reset went back from ${g.R} to ${a.R} for ${key}`));
            }
            // Both resets are the server's clock and the window is whole seconds, so a fixed window
            // gives R2 - R1 >= W exactly (R = ceil(start + W) and the next start is at least W later):
            // no rounding slack; a remote target keeps a second for nodes whose clocks differ.
            if ((g.R - a.R) * 1000 < Math.floor(W / 1000) * 1000 - gapSlack) {
              f.violation(rowEvidence(c, key, [a.last, g.first], `X-RateLimit-Reset moved from ${a.R} to ${g.R}, ${g.R - a.R} s later: the ${W / 1000} s window slid or restarted before it ended`));
              continue;
            }
            // The earliest of our requests that could have opened it: sent after the previous window ended
            // (answers without a reset, or none, may have been counted in it too).
            let opener = g.minStart;
            for (const i of unplaced) {
              if (sEpoch(tEnd[i]) >= a.R * 1000 - tol && tStart[i] < opener) opener = tStart[i];
            }
            // On a key other clients also use (--shared-key) one of theirs may have opened it.
            if (opener < keyStart || shared) continue;
            if (opened < sEpoch(opener) - tol) {
              f.violation(
                rowEvidence(c, key, [g.first], `window resetting at ${g.R} began ${Math.round((sEpoch(opener) - opened) / 100) / 10} s before any request of ${key} after the previous window (it should start at the first request after ${a.R})`),
              );
            }
          }
        }
        return f.outcome('no key was used across a rate window boundary (no two X-RateLimit-Reset values for one key)');
      },
    };
  },
};
export default invariant;
