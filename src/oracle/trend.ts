/**
 * Soak drift: what gets worse with time (a leak, a growing queue, a table without an index).
 *
 * The run is cut into windows (default 60 s, `--trend-window`); per window: p50/p99 per
 * operation, the error and 429 rates, settle time and webhook lag. Each series is tested for
 * an upward trend with the Mann-Kendall test (rank-based: it counts rising and falling pairs,
 * so one slow window or a skewed distribution does not make a trend) and its slope is Sen's
 * slope (the median of all pairwise slopes, robust to outliers), given in % of the series'
 * median per hour. The first window (warm-up) is left out once there are more than MIN_WINDOWS.
 *
 * Drift thresholds: `trend(http_req_duration{op:create}.p99) < 10%/h` (also `%/min`). One
 * fails only when the slope is past the limit AND the upward trend is significant
 * (one-sided Mann-Kendall p < DRIFT_ALPHA) over at least MIN_WINDOWS windows.
 */
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import { percentileOf, type HistoryRecord } from '../history/index.ts';
import { ThresholdError } from './thresholds.ts';
import { normalUpperTail } from './distribution.ts';

export const DEFAULT_TREND_WINDOW_MS = 60_000;
export const DRIFT_ALPHA = 0.01;
export const MIN_WINDOWS = 6;
/** Fewer requests than this in a window: its latency percentiles are left out of the series. */
const MIN_WINDOW_SAMPLES = 5;
/** Most windows kept: beyond it, neighbours are merged and the window doubles (bounded memory on any run length). */
const MAX_WINDOWS = 1000;

interface WindowState {
  ops: Map<string, Histogram>;
  requests: number;
  failed: number;
  limited: number;
  trends: Map<string, Histogram>;
}

export interface WindowFigures {
  /** Window start, run-clock ms. */
  t: number;
  requests: number;
  errorRate: number;
  rateLimited: number;
  /** op -> p50/p99 (ms) and count. */
  ops: Record<string, { p50: number; p99: number; count: number }>;
  /** settle_time, webhook_lag -> p50/p99 (ms) and count. */
  trends: Record<string, { p50: number; p99: number; count: number }>;
}

const newHist = () => hdr.build({ numberOfSignificantValueDigits: 2, autoResize: true, useWebAssembly: false });

/** Per-window figures, fed with history records (and trend samples from the metrics aggregator). */
export class WindowCollector {
  private readonly windows = new Map<number, WindowState>();
  private maxT = 0;
  /** The window length: the one asked for, doubled each time the run outgrew MAX_WINDOWS. */
  windowMs: number;
  constructor(windowMs: number = DEFAULT_TREND_WINDOW_MS) {
    this.windowMs = windowMs;
  }

  private at(t: number): WindowState {
    while (t / this.windowMs >= MAX_WINDOWS) this.coarsen();
    const i = Math.max(0, Math.floor(t / this.windowMs));
    let w = this.windows.get(i);
    if (!w) this.windows.set(i, (w = { ops: new Map(), requests: 0, failed: 0, limited: 0, trends: new Map() }));
    return w;
  }

  add(r: HistoryRecord): void {
    // Aborted by paystorm itself: not the service's (as in the run's metrics).
    if (r.kind !== 'exchange' || r.failure === 'aborted') return;
    if (r.tEnd > this.maxT) this.maxT = r.tEnd;
    const w = this.at(r.tEnd);
    w.requests++;
    if (r.failure !== null || r.status === 0 || r.status >= 500) w.failed++;
    if (r.status === 429) w.limited++;
    let h = w.ops.get(r.op);
    if (!h) w.ops.set(r.op, (h = newHist()));
    h.recordValue(Math.max(1, Math.round((r.tEnd - r.tIntended) * 1000)));
  }

  /** A trend sample (settle_time, webhook_lag, ...) observed at run time t. */
  trend(name: string, t: number, ms: number): void {
    const w = this.at(t);
    let h = w.trends.get(name);
    if (!h) w.trends.set(name, (h = newHist()));
    h.recordValue(Math.max(1, Math.round(ms * 1000)));
  }

  /** Merges windows 2i and 2i+1 into i (histograms add exactly) and doubles the window. */
  private coarsen(): void {
    const merged = new Map<number, WindowState>();
    for (const [i, w] of [...this.windows].sort(([a], [b]) => a - b)) {
      const j = Math.floor(i / 2);
      const into = merged.get(j);
      if (!into) {
        merged.set(j, w);
        continue;
      }
      into.requests += w.requests;
      into.failed += w.failed;
      into.limited += w.limited;
      for (const key of ['ops', 'trends'] as const) {
        for (const [name, h] of w[key]) {
          const have = into[key].get(name);
          if (have) have.add(h);
          else into[key].set(name, h);
        }
      }
    }
    this.windows.clear();
    for (const [i, w] of merged) this.windows.set(i, w);
    this.windowMs *= 2;
  }

  /** Figures of every window, the last one only when at least half full. */
  figures(): WindowFigures[] {
    if (this.windows.size === 0) return [];
    const last = Math.max(...this.windows.keys());
    const lastFull = this.maxT - last * this.windowMs >= this.windowMs / 2 ? last : last - 1;
    const out: WindowFigures[] = [];
    const sum = (h: Histogram) => ({ p50: percentileOf(h, 50) / 1000, p99: percentileOf(h, 99) / 1000, count: h.totalCount });
    for (let i = 0; i <= lastFull; i++) {
      const w = this.windows.get(i);
      const f: WindowFigures = { t: i * this.windowMs, requests: w?.requests ?? 0, errorRate: w?.requests ? w.failed / w.requests : 0, rateLimited: w?.requests ? w.limited / w.requests : 0, ops: {}, trends: {} };
      for (const [op, h] of w?.ops ?? []) f.ops[op] = sum(h);
      for (const [name, h] of w?.trends ?? []) f.trends[name] = sum(h);
      out.push(f);
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Mann-Kendall and Sen's slope

export interface MannKendall {
  n: number;
  s: number;
  z: number;
  /** One-sided p-value of an upward trend. */
  pUp: number;
  /**
   * Lag-1 autocorrelation of the detrended series and the factor its variance was widened by
   * (1 when none was found or no times were given).
   */
  lag1?: number;
  varianceFactor?: number;
}

/**
 * Serial correlation widens the variance of S (Yue & Wang 2004, after Bayley and Hammersley):
 * neighbouring windows of one soak share the machine's state, so a clean series drifts up and
 * down in runs, and Mann-Kendall alone reads those runs as trends (a fifth of clean soaks at a
 * lag-1 correlation of 0.8). With the lag-1 correlation ρ of the series after Sen's slope is
 * taken out, the variance is multiplied by 1 + 2·Σ(1 − k/n)·ρ^k; a real trend is removed first,
 * so it does not count as correlation. `senSlopeOfSeries`: Sen's slope of (xs, ys) when the caller
 * has it already (computed here otherwise).
 */
export function serialCorrelationFactor(xs: readonly number[], ys: readonly number[], senSlopeOfSeries?: number): { lag1: number; factor: number } {
  const n = ys.length;
  if (n < 4 || xs.length !== n) return { lag1: 0, factor: 1 };
  const slope = senSlopeOfSeries ?? senSlope(xs, ys);
  const r = ys.map((y, i) => y - slope * xs[i]);
  const mean = r.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) den += (r[i] - mean) ** 2;
  for (let i = 1; i < n; i++) num += (r[i] - mean) * (r[i - 1] - mean);
  // The sample lag-1 correlation is biased low in short series; Kendall's correction for AR(1).
  const lag1 = den > 0 ? Math.min(0.99, (n * (num / den) + 1) / (n - 4)) : 0;
  if (!(lag1 > 0)) return { lag1, factor: 1 };
  let factor = 1;
  for (let k = 1; k < n; k++) factor += 2 * (1 - k / n) * lag1 ** k;
  return { lag1, factor };
}

/**
 * Mann-Kendall S with the tie-corrected variance and continuity correction; with the windows'
 * times, the variance also allows for serial correlation (serialCorrelationFactor). A caller that
 * has Sen's slope of the series already passes it, so it is not computed again.
 */
export function mannKendall(ys: readonly number[], xs?: readonly number[], senSlopeOfSeries?: number): MannKendall {
  const n = ys.length;
  let s = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) s += Math.sign(ys[j] - ys[i]);
  const ties = new Map<number, number>();
  for (const y of ys) ties.set(y, (ties.get(y) ?? 0) + 1);
  let tieTerm = 0;
  for (const t of ties.values()) if (t > 1) tieTerm += t * (t - 1) * (2 * t + 5);
  const serial = xs ? serialCorrelationFactor(xs, ys, senSlopeOfSeries) : { lag1: 0, factor: 1 };
  const variance = ((n * (n - 1) * (2 * n + 5) - tieTerm) / 18) * serial.factor;
  const z = variance > 0 ? (s > 0 ? (s - 1) / Math.sqrt(variance) : s < 0 ? (s + 1) / Math.sqrt(variance) : 0) : 0;
  return { n, s, z, pUp: normalUpperTail(z), ...(xs ? { lag1: serial.lag1, varianceFactor: serial.factor } : {}) };
}

/** Sen's slope: the median of the slopes between every pair of points. */
export function senSlope(xs: readonly number[], ys: readonly number[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) if (xs[j] !== xs[i]) slopes.push((ys[j] - ys[i]) / (xs[j] - xs[i]));
  if (slopes.length === 0) return 0;
  slopes.sort((a, b) => a - b);
  const m = slopes.length >> 1;
  return slopes.length % 2 ? slopes[m] : (slopes[m - 1] + slopes[m]) / 2;
}

function median(ys: readonly number[]): number {
  const s = [...ys].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// ---------------------------------------------------------------------------------------------
// Series, drift and drift thresholds

export interface DriftSeries {
  /** e.g. `http_req_duration{op:create}.p99`, `http_req_failed.rate`, `settle_time.p99`. */
  key: string;
  unit: 'ms' | 'share';
  points: [number, number][];
  mk: MannKendall;
  /** Sen's slope in units per hour, and as % of the series' median per hour (null when the median is 0). */
  slopePerHour: number;
  pctPerHour: number | null;
  /** Upward trend with p < DRIFT_ALPHA over at least MIN_WINDOWS windows. */
  significant: boolean;
}

export interface DriftThresholdResult {
  expr: string;
  key: string;
  /** The drift in the threshold's unit; null when too few windows. */
  value: number | null;
  limit: number;
  unit: DriftUnit;
  pUp: number | null;
  ok: boolean;
  note: string;
}

export interface Drift {
  windowMs: number;
  windows: number;
  test: string;
  alpha: number;
  series: DriftSeries[];
  thresholds: DriftThresholdResult[];
}

const DRIFT_TEST_TEXT = `Mann-Kendall trend test (one-sided, upward, tie-corrected; p < ${DRIFT_ALPHA} over at least ${MIN_WINDOWS} windows) with Sen's slope`;

/**
 * Every series the windows give: per operation p50/p99, error and 429 rates, settle time and
 * webhook lag p50/p99. The first window is warm-up (JIT, connection pools, caches) and is left
 * out once there are more than MIN_WINDOWS windows: it would read as a falling start.
 */
function driftSeries(all: readonly WindowFigures[]): DriftSeries[] {
  const figs = all.length > MIN_WINDOWS ? all.slice(1) : all;
  const raw = new Map<string, { unit: DriftSeries['unit']; points: [number, number][] }>();
  const push = (key: string, unit: DriftSeries['unit'], t: number, v: number) => {
    let s = raw.get(key);
    if (!s) raw.set(key, (s = { unit, points: [] }));
    s.points.push([t, v]);
  };
  for (const f of figs) {
    const mid = f.t;
    for (const [op, o] of Object.entries(f.ops)) {
      if (o.count < MIN_WINDOW_SAMPLES) continue;
      push(`http_req_duration{op:${op}}.p50`, 'ms', mid, o.p50);
      push(`http_req_duration{op:${op}}.p99`, 'ms', mid, o.p99);
    }
    if (f.requests > 0) {
      push('http_req_failed.rate', 'share', mid, f.errorRate);
      push('rate_limited.rate', 'share', mid, f.rateLimited);
    }
    for (const [name, o] of Object.entries(f.trends)) {
      if (o.count < MIN_WINDOW_SAMPLES) continue;
      push(`${name}.p50`, 'ms', mid, o.p50);
      push(`${name}.p99`, 'ms', mid, o.p99);
    }
  }
  const out: DriftSeries[] = [];
  for (const [key, s] of [...raw].sort(([a], [b]) => a.localeCompare(b))) {
    const xs = s.points.map((p) => p[0] / 3_600_000);
    const ys = s.points.map((p) => p[1]);
    const slope = senSlope(xs, ys);
    const mk = mannKendall(ys, xs, slope);
    const med = median(ys);
    out.push({ key, unit: s.unit, points: s.points, mk, slopePerHour: slope, pctPerHour: med > 0 ? (slope / med) * 100 : null, significant: mk.n >= MIN_WINDOWS && mk.pUp < DRIFT_ALPHA });
  }
  return out;
}

export interface DriftThreshold {
  expr: string;
  key: string;
  op: '<' | '<=';
  limit: number;
  unit: DriftUnit;
}

/**
 * `%/h`, `%/min`: Sen's slope as % of the series' median; `ms/h`, `ms/min` (latency) and `/h`,
 * `/min` (in the series' own unit: ms, or a share for rates, `0.01/h` = one point an hour): absolute.
 */
export type DriftUnit = '%/h' | '%/min' | 'ms/h' | 'ms/min' | '/h' | '/min';

const TREND_EXPR = /^\s*trend\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\{\s*op\s*:\s*["']?([a-z_]+)["']?\s*\})?\s*\.\s*(p50|p99|rate)\s*\)\s*(<=|<)\s*(-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?)\s*(%|ms)?\s*\/\s*(h|min)\s*$/;
const TREND_METRICS: Record<string, readonly string[]> = {
  http_req_duration: ['p50', 'p99'],
  settle_time: ['p50', 'p99'],
  webhook_lag: ['p50', 'p99'],
  settle_after_heal: ['p50', 'p99'],
  http_req_failed: ['rate'],
  rate_limited: ['rate'],
};

export function isDriftExpr(expr: string): boolean {
  return /^\s*trend\s*\(/.test(expr);
}

export function parseDriftThreshold(expr: string): DriftThreshold {
  const m = TREND_EXPR.exec(expr);
  if (!m) {
    throw new ThresholdError(
      `threshold "${expr}" is not a drift threshold of the form "trend(metric{op:NAME}.p99) < N%/h" (or %/min, ms/h, /h). Examples: "trend(http_req_duration{op:create}.p99) < 10%/h", "trend(settle_time.p50) < 50ms/h", "trend(http_req_failed.rate) < 0.01/h".`,
    );
  }
  const [, metric, op, stat, cmp, num, kind, per] = m;
  const stats = TREND_METRICS[metric];
  if (!stats) throw new ThresholdError(`threshold "${expr}": trend() takes ${Object.keys(TREND_METRICS).join(', ')}; not ${metric}.`);
  if (!stats.includes(stat)) throw new ThresholdError(`threshold "${expr}": ${metric} has ${stats.map((s) => `.${s}`).join(', ')} per window; not .${stat}.`);
  if (op && metric !== 'http_req_duration') throw new ThresholdError(`threshold "${expr}": only http_req_duration takes {op:NAME} in trend().`);
  if (kind === 'ms' && stat === 'rate') throw new ThresholdError(`threshold "${expr}": a rate drifts in shares, not ms: write e.g. 0.01/h (one point an hour) or 50%/h.`);
  const key = `${metric}${op ? `{op:${op}}` : ''}.${stat}`;
  return { expr: expr.trim(), key, op: cmp as '<' | '<=', limit: Number(num), unit: `${kind ?? ''}/${per}` as DriftUnit };
}

function evaluateDrift(t: DriftThreshold, series: readonly DriftSeries[]): DriftThresholdResult {
  const s = series.find((x) => x.key === t.key);
  const base = { expr: t.expr, key: t.key, limit: t.limit, unit: t.unit };
  if (!s || s.mk.n < MIN_WINDOWS) {
    return { ...base, value: null, pUp: s?.mk.pUp ?? null, ok: true, note: `not judged: ${s ? s.mk.n : 0} window(s) with samples, at least ${MIN_WINDOWS} needed (a longer run or a shorter --trend-window)` };
  }
  const relative = t.unit.startsWith('%');
  const perHour = relative ? (s.pctPerHour ?? (s.slopePerHour > 0 ? Infinity : 0)) : s.slopePerHour;
  const value = t.unit.endsWith('/h') ? perHour : perHour / 60;
  const past = t.op === '<' ? !(value < t.limit) : !(value <= t.limit);
  const ok = !(past && s.significant);
  const shown = Number.isFinite(value) ? `${Math.abs(value) >= 0.1 || value === 0 ? value.toFixed(1) : value.toPrecision(2)}${t.unit}` : `rising from 0`;
  const note = past
    ? s.significant
      ? `drift: ${shown}, an upward trend (Mann-Kendall p ${s.mk.pUp.toExponential(1)} < ${DRIFT_ALPHA})`
      : `${shown} but no significant upward trend (Mann-Kendall p ${s.mk.pUp.toFixed(3)} ≥ ${DRIFT_ALPHA}): noise`
    : `${shown}, within the limit`;
  return { ...base, value: Number.isFinite(value) ? value : null, pUp: s.mk.pUp, ok, note };
}

/** The run's drift: every series with its test, and the drift thresholds judged. */
export function computeDrift(figs: readonly WindowFigures[], windowMs: number, exprs: readonly string[]): Drift {
  const series = driftSeries(figs);
  return { windowMs, windows: figs.length, test: DRIFT_TEST_TEXT, alpha: DRIFT_ALPHA, series, thresholds: exprs.map((e) => evaluateDrift(parseDriftThreshold(e), series)) };
}
