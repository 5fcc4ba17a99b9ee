// over-refund-refused kept every refunded total it saw, a pair a poll of a refunded payment; it now
// keeps only the pairs that can be the largest total seen before some time (keepRising). This
// checks that what it asks of them is what every pair kept gave.
import { describe, expect, it } from 'vitest';
import { keepRising } from '../../src/oracle/invariants/over-refund-refused.ts';
import { seededRandom } from '../../src/spec/random.ts';

/** The largest total seen before `t` (0: none), as finish() reads it. */
const largestBefore = (pairs: readonly [number, number][], t: number) => pairs.reduce((m, [at, v]) => (at < t && v > m ? v : m), 0);

describe('over-refund-refused: refunded totals kept rising', () => {
  it('answers the largest total seen before any time as the whole list did, for totals seen out of order', () => {
    let dropped = 0;
    for (let seed = 1; seed <= 500; seed++) {
      const r = seededRandom(seed);
      const all: [number, number][] = [];
      const kept: [number, number][] = [];
      const n = 1 + Math.floor(r() * 30);
      for (let k = 0; k < n; k++) {
        // Polls of a payment refunded in steps, answered out of order, times often tied.
        const pair: [number, number] = [Math.floor(r() * 20), 100 * Math.floor(r() * 6)];
        all.push(pair);
        if (kept.length === 0) kept.push(pair);
        else keepRising(kept, pair[0], pair[1]);
      }
      for (let t = -1; t <= 21; t++) expect({ seed, t, v: largestBefore(kept, t) }).toEqual({ seed, t, v: largestBefore(all, t) });
      for (let k = 1; k < kept.length; k++) expect(kept[k][0] >= kept[k - 1][0] && kept[k][1] > kept[k - 1][1]).toBe(true);
      dropped += all.length - kept.length;
    }
    // Most pairs are redundant: what the soak's polls of a refunded payment no longer hold.
    expect(dropped).toBeGreaterThan(2000);
  });
});
