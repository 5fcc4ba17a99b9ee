import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { groupByReset, isCounted, limitOf, rowEvidence, serverOffsetOf, unplacedRows, windowMsOf } from '../lib/rate.ts';

/**
 * RL-9. While one key is exhausted, another key's 429 must be explained by its
 * own traffic: its window (by reset value) must have counted at least the limit,
 * counting also its requests that got no answer (the server may have counted them).
 * A key's first window is skipped when it may have opened before the run, and a key marked
 * shared (`--shared-key`) is not judged: other clients' requests count in its windows.
 */
const invariant: Invariant = {
  id: 'rate-limit-per-key',
  title: 'Rate limit counters are per API key: exhausting one key never gives 429 to another',
  rules: ['RL-9'],
  readsRateTables: true,
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        // Our times moved into the server's clock (its Date headers), where X-RateLimit-Reset lives.
        const offset = serverOffsetOf(ctx).offsetMs;
        const sEpoch = (t: number) => ctx.epochMs(t) + offset;
        const W = windowMsOf(ctx);
        // Exhausted periods per key, in epoch ms: from its first 429 of a window to that window's reset.
        const exhausted: { key: string; from: number; to: number }[] = [];
        // Two passes over the keys, each key's rows read anew (ledger.rateTables): the first keeps only the exhausted periods.
        for (const [key, c] of ctx.ledger.rateTables()) {
          const g = groupByReset(c);
          const status = c.col('status');
          const ts = c.col('tStart');
          for (const [R, rows] of g) {
            const first429 = rows.filter((i) => status[i] === 429).reduce((m, i) => Math.min(m, ts[i]), Infinity);
            if (first429 < Infinity) exhausted.push({ key, from: sEpoch(first429), to: R * 1000 });
          }
        }
        for (const [key, c] of ctx.ledger.rateTables()) {
          const others = exhausted.filter((e) => e.key !== key);
          if (others.length === 0) continue;
          const status = c.col('status');
          const ts = c.col('tStart');
          const te = c.col('tEnd');
          let keyStart = Infinity;
          for (let i = 0; i < c.length; i++) keyStart = Math.min(keyStart, ts[i]);
          // The latest the key's first request may truly have been sent (rows span a merged shard's clock slack).
          keyStart += 2 * ctx.ledger.rateSlackMs(key);
          for (let i = 0; i < c.length; i++) {
            if (others.some((e) => sEpoch(ts[i]) >= e.from && sEpoch(ts[i]) <= e.to)) f.check();
          }
          const unplaced = unplacedRows(c);
          for (const [R, rows] of groupByReset(c)) {
            const refused = rows.filter((i) => status[i] === 429);
            if (refused.length === 0) continue;
            const opened = R * 1000 - W;
            if (opened < sEpoch(keyStart)) continue;
            const limit = limitOf(c, rows, ctx);
            if (limit === undefined) continue;
            let own = rows.filter((i) => isCounted(c, i)).length;
            for (const i of unplaced) {
              if (status[i] === 0 && sEpoch(te[i]) >= opened && sEpoch(ts[i]) <= R * 1000) own++;
            }
            // On a key other clients also use (--shared-key) their requests may make up the rest (rate-no-early-429 observes it).
            if (own >= limit || ctx.keys.get(key)?.shared === true) continue;
            const q = refused[0];
            const culprit = others.find((e) => sEpoch(ts[q]) >= e.from - 1000 && sEpoch(ts[q]) <= e.to);
            if (!culprit) continue;
            f.violation(rowEvidence(c, key, [q], `${key} got 429 after only ${own} of its own requests in the window resetting at ${R} (limit ${limit}), while ${culprit.key} was exhausted`));
          }
        }
        return f.outcome('no key was used while another key was rate limited');
      },
    };
  },
};
export default invariant;
