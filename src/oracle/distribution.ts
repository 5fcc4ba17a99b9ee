/**
 * Sampling distributions of a run's statistics, for the baseline comparison (baseline.ts)
 * and its confidence: how sure we are that a statistic of the new run is worse than the
 * baseline's, from the two runs' HDR histograms and counts alone.
 *
 * - A percentile p(q) of n latencies is an order statistic; its sampling distribution is
 *   that of the value at a rank whose fraction is about Normal(q, q(1-q)/n). This is what a
 *   bootstrap of the histogram gives (a resample's p(q) is the value at a Binomial(n, q)
 *   rank), without resampling n values: a draw is one normal and one look-up in the bins.
 * - A mean: Normal(mean, sd²/n). A rate x/n: Beta(x + ½, n − x + ½) (Jeffreys), sound at 0.
 * Draws come from a seeded generator, so the same two runs always get the same confidence.
 */
import * as hdr from 'hdr-histogram-js';
import { seededRandom } from '../spec/random.ts';

/** A merged latency distribution: distinct values (ms) and cumulative counts. */
export interface Bins {
  values: number[];
  cum: number[];
  n: number;
}

function emptyBins(): Bins {
  return { values: [], cum: [], n: 0 };
}

/** Merges encoded µs histograms into ms bins (exact: counts add bucket by bucket). */
export function binsOf(encoded: readonly string[]): Bins {
  const list = encoded.filter((e) => typeof e === 'string' && e.length > 0);
  if (list.length === 0) return emptyBins();
  const [first, ...rest] = list.map((e) => hdr.decodeFromCompressedBase64(e, 32, false));
  for (const h of rest) {
    first.add(h);
    h.destroy();
  }
  const values: number[] = [];
  const cum: number[] = [];
  let n = 0;
  const js = first as unknown as { highestEquivalentValue(v: number): number };
  const it = (first as unknown as { recordedValuesIterator: { reset(): void; hasNext(): boolean; next(): { valueIteratedTo: number; countAtValueIteratedTo: number } } }).recordedValuesIterator;
  it.reset();
  while (it.hasNext()) {
    const v = it.next();
    n += v.countAtValueIteratedTo;
    values.push(js.highestEquivalentValue(v.valueIteratedTo) / 1000);
    cum.push(n);
  }
  first.destroy();
  return { values, cum, n };
}

/** The value at a rank fraction u (0..1): the smallest value with at least ceil(u·n) values at or below it. */
function valueAtFraction(b: Bins, u: number): number {
  if (b.n === 0) return NaN;
  const rank = Math.min(b.n, Math.max(1, Math.ceil(u * b.n)));
  let lo = 0;
  let hi = b.cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (b.cum[mid] >= rank) hi = mid;
    else lo = mid + 1;
  }
  return b.values[lo];
}

function meanOf(b: Bins): number {
  let s = 0;
  let prev = 0;
  for (let i = 0; i < b.values.length; i++) {
    s += b.values[i] * (b.cum[i] - prev);
    prev = b.cum[i];
  }
  return b.n ? s / b.n : NaN;
}

function sdOf(b: Bins): number {
  const m = meanOf(b);
  let s = 0;
  let prev = 0;
  for (let i = 0; i < b.values.length; i++) {
    s += (b.values[i] - m) ** 2 * (b.cum[i] - prev);
    prev = b.cum[i];
  }
  return b.n > 1 ? Math.sqrt(s / (b.n - 1)) : 0;
}

/** About `points` (value ms, cumulative share) pairs of the distribution, for a CDF plot. */
export function cdfPoints(b: Bins, points = 60): [number, number][] {
  if (b.n === 0) return [];
  const out: [number, number][] = [];
  const step = Math.max(1, Math.floor(b.values.length / points));
  for (let i = 0; i < b.values.length; i += step) out.push([b.values[i], b.cum[i] / b.n]);
  const last = b.values.length - 1;
  if (out[out.length - 1][0] !== b.values[last]) out.push([b.values[last], 1]);
  return out;
}

/** Seeded resampling: the run's generator (src/spec/random.ts). */
export const rng = seededRandom;

function normal(r: () => number): number {
  const u = Math.max(r(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

/** Marsaglia–Tsang gamma draw (shape k > 0, scale 1). */
function gamma(r: () => number, k: number): number {
  if (k < 1) return gamma(r, k + 1) * Math.pow(Math.max(r(), 1e-12), 1 / k);
  const d = k - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(r);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = r();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** A statistic: its point value and a draw from its sampling distribution. */
export interface Sampler {
  value: number;
  n: number;
  draw: (r: () => number) => number;
  /** No sampling model (a count, a min or max): the value is taken as exact. */
  exact?: boolean;
}

export function percentileSampler(b: Bins, q: number): Sampler {
  const f = q / 100;
  const sd = Math.sqrt((f * (1 - f)) / Math.max(1, b.n));
  return { value: valueAtFraction(b, f), n: b.n, draw: (r) => valueAtFraction(b, Math.min(1, Math.max(0, f + sd * normal(r)))) };
}

export function meanSampler(b: Bins): Sampler {
  const m = meanOf(b);
  const se = sdOf(b) / Math.sqrt(Math.max(1, b.n));
  return { value: m, n: b.n, draw: (r) => Math.max(0, m + se * normal(r)) };
}

export function rateSampler(hits: number, n: number): Sampler {
  return {
    value: n ? hits / n : NaN,
    n,
    draw: (r) => {
      const a = gamma(r, hits + 0.5);
      const b = gamma(r, n - hits + 0.5);
      return a / (a + b);
    },
  };
}

/** A point value with no sampling model (counts, min, max): taken as exact. */
export function exactSampler(value: number, n: number): Sampler {
  return { value, n, draw: () => value, exact: true };
}

export interface Contrast {
  /** P(new > base): the confidence that the new run's statistic is worse (higher). */
  confidence: number;
  /** 95% interval of new / base (null when base can be 0) and of new − base. */
  ratio: [number, number] | null;
  diff: [number, number];
}

const DRAWS = 4000;

/** Draws both sampling distributions (seeded) and returns how sure we are the new one is higher. */
export function contrast(base: Sampler, next: Sampler, seed = 15): Contrast {
  const r = rng(seed);
  let higher = 0;
  const ratios: number[] = [];
  const diffs: number[] = [];
  for (let i = 0; i < DRAWS; i++) {
    const b = base.draw(r);
    const n = next.draw(r);
    if (n > b) higher++;
    else if (n === b) higher += 0.5;
    diffs.push(n - b);
    ratios.push(b > 0 ? n / b : Infinity);
  }
  const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  ratios.sort((a, b) => a - b);
  diffs.sort((a, b) => a - b);
  const finite = ratios.every(Number.isFinite);
  return { confidence: higher / DRAWS, ratio: finite ? [q(ratios, 0.025), q(ratios, 0.975)] : null, diff: [q(diffs, 0.025), q(diffs, 0.975)] };
}

/** Standard normal upper tail, P(Z > z) (Abramowitz-Stegun 7.1.26 through erfc). */
export function normalUpperTail(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erfc = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}

/**
 * One-sided Mann-Whitney U test that `next` tends to be larger than `base` (normal approximation
 * with the tie correction and a continuity correction). Returns the p-value; 1 − p is the
 * confidence that the new values are stochastically larger.
 */
export function mannWhitneyGreater(base: readonly number[], next: readonly number[]): number {
  const n1 = base.length;
  const n2 = next.length;
  if (n1 === 0 || n2 === 0) return 1;
  const all = [...base.map((v) => ({ v, g: 0 })), ...next.map((v) => ({ v, g: 1 }))].sort((a, b) => a.v - b.v);
  const n = n1 + n2;
  let rankSumNext = 0;
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && all[j + 1].v === all[i].v) j++;
    const rank = (i + j) / 2 + 1;
    const t = j - i + 1;
    if (t > 1) tieTerm += t ** 3 - t;
    for (let k = i; k <= j; k++) if (all[k].g === 1) rankSumNext += rank;
    i = j + 1;
  }
  const u = rankSumNext - (n2 * (n2 + 1)) / 2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (variance <= 0) return u > mean ? 0 : 1;
  const z = (u - mean - 0.5) / Math.sqrt(variance);
  return normalUpperTail(z);
}
