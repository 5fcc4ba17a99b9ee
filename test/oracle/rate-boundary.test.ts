import { describe, expect, it } from 'vitest';
import { limitWhy, measureRateBoundary } from '../../src/oracle/lib/rate-boundary.ts';

const run = { target: { url: 'http://x', embedded: true, presentation: 'B' as const }, rateLimit: { limit: 3, windowMs: 1000 } };
const ex = (group: string, tStart: number, status: number, remaining: number | null = null) => ({ group, tStart, tEnd: tStart + 2, status, key: 'k', rate: remaining === null ? null : { limit: 3, remaining, reset: 1 } });

describe('measureRateBoundary', () => {
  // Window opened at 100 (remaining 2), edge probes refused until 1090, admitted at 1110; bursts
  // before and after the next boundary (about 1111 + 1000).
  const history = [
    ex('rl-retry-after', 100, 200, 2),
    ex('rl-w2', 120, 200, 1),
    ex('rl-edge', 1050, 429),
    ex('rl-edge', 1090, 429),
    ex('rl-edge', 1110, 200, 2),
    ex('rl-edge', 1200, 200, 1),
    ...[1700, 1701, 1702, 1703, 1704].map((t, i) => ex('rl-burst', t, i < 1 ? 200 : 429)),
    ...[2130, 2131, 2132, 2133].map((t, i) => ex('rl-burst', t, i < 3 ? 200 : 429)),
  ];
  const b = measureRateBoundary(run, history)!;

  it('finds the edge between the last refused probe and the first admitted one, from the window opener', () => {
    expect(b.edge).toEqual({ from: 1090, to: 1112, afterOpenMin: 988, afterOpenMax: 1012 });
  });
  it('counts what was admitted on each side of the next boundary and bins the burst', () => {
    expect(b.burst).toMatchObject({ before: 1, after: 3, sent: 9 });
    expect(b.burst!.boundary).toBe(2111);
    expect(b.bins.reduce((n, x) => n + x.admitted, 0)).toBe(4);
    expect(b.bins.reduce((n, x) => n + x.refused, 0)).toBe(5);
    expect(b.text).toBe('3 / 1 s: window edge at 988-1012 ms after the window opened; 1 + 3 admitted across the next boundary within 434 ms (limit 3, at most 6 allowed)');
  });
  it('is null for a history without the probe', () => {
    expect(measureRateBoundary(run, [ex('rl-w1', 10, 200, 2)])).toBeNull();
  });
});

describe('limitWhy', () => {
  it('says the embedded run checks a scaled limit, not the spec one', () => {
    expect(limitWhy({ target: run.target, rateLimit: { limit: 120, windowMs: 3000 } })).toMatch(/^checked 120 \/ 3 s: the embedded reference service .* not the spec's 500 \/ 60 s$/);
  });
  it('says a deployment is checked against its own limit and the spec window', () => {
    expect(limitWhy({ target: { ...run.target, embedded: false }, rateLimit: { limit: 500, windowMs: 60_000 } })).toBe("checked the spec's 500 / 60 s window (the target's X-RateLimit-Limit)");
    expect(limitWhy({ target: { ...run.target, embedded: false }, rateLimit: { limit: 100, windowMs: 10_000 } })).toMatch(/--window-ms/);
  });
});
