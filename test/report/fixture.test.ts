import { describe, expect, it } from 'vitest';
import { summarySchema } from '../../src/spec/summary.ts';
import { fixtureMetrics, fixtureSummary, KEY_A, KEY_B, LIMIT } from './fixture.ts';

describe('report fixture', () => {
  it('is a valid Summary v1', () => {
    expect(() => summarySchema.parse(fixtureSummary())).not.toThrow();
  });

  it('covers every invariant status, both threshold outcomes, and two keys over two windows', () => {
    const s = fixtureSummary();
    expect(new Set(s.invariants.map((i) => i.status))).toEqual(new Set(['pass', 'fail', 'not-exercised', 'error']));
    expect(new Set(s.thresholds.map((t) => t.ok))).toEqual(new Set([true, false]));
    const m = fixtureMetrics();
    expect(m.timeline).toHaveLength(60);
    for (const key of [KEY_A, KEY_B]) {
      const resets = new Set(m.rate.filter((r) => r.key === key).map((r) => r.reset));
      expect(resets.size).toBe(2);
    }
    expect(m.rate.some((r) => r.status === 429 && r.remaining === 0)).toBe(true);
    expect(m.rate.every((r) => r.limit === LIMIT)).toBe(true);
  });
});
