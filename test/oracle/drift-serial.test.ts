/**
 * Drift over a soak's windows: neighbouring windows share the machine's state, so a clean
 * series wanders in runs (serial correlation). Mann-Kendall alone called a fifth of such clean
 * soaks drifting; with the variance widened for the correlation (Yue & Wang) about one in
 * twenty-five is, while a real upward trend is still found.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/spec/random.ts';
import { mannKendall, serialCorrelationFactor } from '../../src/oracle/trend.ts';

/** A standard normal from two uniforms (Box-Muller). */
function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** n windows of AR(1) noise (correlation phi) around 100, plus `trendPerWindow`. */
function series(rand: () => number, n: number, phi: number, trendPerWindow: number): { xs: number[]; ys: number[] } {
  const xs: number[] = [];
  const ys: number[] = [];
  let e = normal(rand) / Math.sqrt(1 - phi * phi);
  for (let i = 0; i < n; i++) {
    e = phi * e + normal(rand);
    xs.push(i);
    ys.push(100 + trendPerWindow * i + 3 * e);
  }
  return { xs, ys };
}

const ALPHA = 0.01;

describe('Mann-Kendall with serial correlation', () => {
  it('clean soaks with strongly correlated windows: few called drifting (was about a fifth)', () => {
    const rand = seededRandom(7);
    let plain = 0;
    let corrected = 0;
    const N = 300;
    for (let k = 0; k < N; k++) {
      const { xs, ys } = series(rand, 40, 0.8, 0);
      if (mannKendall(ys).pUp < ALPHA) plain++;
      if (mannKendall(ys, xs).pUp < ALPHA) corrected++;
    }
    // Measured with this seed: about 20% uncorrected, about 4% corrected (nominal 1%; the
    // correlation estimated from 40 windows is itself uncertain).
    expect(plain / N).toBeGreaterThan(0.12);
    expect(corrected / N).toBeLessThan(0.06);
    expect(plain).toBeGreaterThan(3 * corrected);
  });
  it('a real upward trend is still found, also through correlated noise', () => {
    const rand = seededRandom(11);
    let found = 0;
    const N = 100;
    for (let k = 0; k < N; k++) {
      const { xs, ys } = series(rand, 40, 0.5, 1.5);
      if (mannKendall(ys, xs).pUp < ALPHA) found++;
    }
    expect(found / N).toBeGreaterThan(0.9);
  });
  it('independent windows are not widened much; the factor follows the correlation', () => {
    const rand = seededRandom(3);
    const { xs, ys } = series(rand, 60, 0, 0);
    expect(serialCorrelationFactor(xs, ys).factor).toBeLessThan(1.6);
    const c = series(rand, 60, 0.9, 0);
    expect(serialCorrelationFactor(c.xs, c.ys).factor).toBeGreaterThan(3);
  });
});
