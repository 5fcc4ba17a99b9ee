/**
 * A shard's clock offset (merge.ts estimateOffset) discounts stale Date headers the way the
 * server clock does: a server that caches its Date string sends one up to its event-loop lag
 * behind, which would pull one bound past the truth.
 */
import { describe, expect, it } from 'vitest';
import { estimateOffset } from '../../src/history/merge.ts';
import { ex, runRec } from '../oracle/fixtures.ts';

describe('estimateOffset', () => {
  it('keeps the true offset within its bounds when two answers carry a stale Date', () => {
    const run = runRec();
    const trueOffset = 2_345; // shard clock minus server clock, ms
    const xs = Array.from({ length: 40 }, (_, i) => {
      const t = i * 137; // run time of the request's start, ms
      const x = ex({ t, dur: 5 });
      const serverMs = run.wall + t + 2 - trueOffset; // the server wrote Date mid-flight
      const stale = i === 10 || i === 25 ? 900 : 0; // a cached Date string, 0.9 s old
      return { ...x, date: Math.floor((serverMs - stale) / 1000) };
    });
    const e = estimateOffset(run, xs);
    expect(e.samples).toBe(40);
    expect(Math.abs(e.offsetMs! - trueOffset)).toBeLessThanOrEqual(e.plusMinusMs!);
    // And the stale answers do not blow the uncertainty up (the raw intersection crossed, and
    // fell back to half a second and more: every merged record's clock slack with it).
    expect(e.plusMinusMs!).toBeLessThan(100);
  });
});
