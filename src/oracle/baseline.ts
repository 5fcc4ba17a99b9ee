/**
 * Baselines and regression thresholds: "no worse than main".
 *
 * A baseline is a small file (baseline.json): a run's merged HDR histograms per operation and
 * outcome class, its trend histograms (settle_time, webhook_lag, settle_after_heal) and counts;
 * never the history. `--save-baseline DIR` writes it; `--baseline DIR` (or `paystorm compare`)
 * compares a run with it.
 *
 * Regression thresholds use k6's syntax with `baseline` on the right:
 *   http_req_duration{op:create}: p(99) < baseline * 1.2
 *   http_req_failed: rate < baseline + 0.01
 * A regression is reported only when the new value is past the limit AND the new run is worse
 * than the baseline with at least CONFIDENCE (distribution.ts: the sampling distributions of
 * both statistics from their histograms), so noise in a small sample does not fail a build.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { makeDirsSync } from '../history/index.ts';
import { join } from 'node:path';
import { EXIT, PaystormError, type LatencySummary, type RunMetrics, type Summary } from '../spec/index.ts';
import { summarizeEncoded } from '../history/metrics.ts';
import { compare, evaluateThreshold, parseThreshold, ThresholdError, type Comparison, type Threshold } from './thresholds.ts';
import { binsOf, cdfPoints, contrast, exactSampler, mannWhitneyGreater, meanSampler, percentileSampler, rateSampler, type Sampler } from './distribution.ts';

export const BASELINE_FILE = 'baseline.json';
const BASELINE_VERSION = 1 as const;
/** A regression needs P(new worse than base) at least this. */
export const CONFIDENCE = 0.95;
/** Fewer samples than this on either side: not judged (a p99 of a handful of requests is noise). */
export const MIN_SAMPLES = 20;
/** Latency is tested on per-second figures; fewer seconds with samples than this on either side: not judged. */
const MIN_SECONDS = 5;
/** Per-second figures kept in a baseline (evenly thinned beyond it). */
const MAX_SECONDS = 600;

interface EncodedSeries {
  count: number;
  hdr: string;
}

export interface Baseline {
  kind: 'paystorm-baseline';
  version: typeof BASELINE_VERSION;
  runId: string;
  savedAt: string;
  target: { url: string; embedded: boolean };
  scenarios: string[];
  durationMs: number;
  requests: number;
  dropped: number;
  failures: number;
  /** op -> outcome class -> histogram (µs, HDR compressed base64) and count. */
  latency: Record<string, Record<string, EncodedSeries>>;
  /** settle_time, webhook_lag, settle_after_heal (ms recorded as µs). */
  trends: Record<string, EncodedSeries>;
  /** op -> its p50 and p99 (ms) in each second of the run with requests of it (at most MAX_SECONDS, evenly thinned): the latency test's units. */
  perSecond: PerSecond;
}

export type PerSecond = Record<string, { p50: number[]; p99: number[] }>;

/** Per-operation p50/p99 of every second from the run's timeline (thinned to MAX_SECONDS). */
function perSecondOf(m: RunMetrics): PerSecond {
  const out: PerSecond = {};
  for (const p of m.timeline ?? []) {
    for (const [op, l] of Object.entries(p.latency ?? {})) {
      if (!l || !l.count) continue;
      const s = (out[op] ??= { p50: [], p99: [] });
      s.p50.push(l.p50);
      s.p99.push(l.p99);
    }
  }
  for (const s of Object.values(out)) {
    if (s.p50.length <= MAX_SECONDS) continue;
    const stride = s.p50.length / MAX_SECONDS;
    const keep = (xs: number[]) => Array.from({ length: MAX_SECONDS }, (_, i) => xs[Math.floor(i * stride)]);
    s.p50 = keep(s.p50);
    s.p99 = keep(s.p99);
  }
  return out;
}

/** The baseline of a judged run: its histograms and counts from summary.json's metrics. */
export function baselineFromSummary(s: Summary): Baseline {
  const m = s.metrics as unknown as RunMetrics;
  const latency: Baseline['latency'] = {};
  for (const [op, byClass] of Object.entries(m.latency ?? {})) {
    for (const [cls, series] of Object.entries(byClass)) {
      if (!series || !series.count) continue;
      (latency[op] ??= {})[cls] = { count: series.count, hdr: series.hdr };
    }
  }
  const trends: Baseline['trends'] = {};
  for (const [name, t] of Object.entries(m.trends ?? {})) {
    const enc = (t as Partial<LatencySummary>).hdr;
    if (t && t.count && typeof enc === 'string') trends[name] = { count: t.count, hdr: enc };
  }
  return {
    kind: 'paystorm-baseline',
    version: BASELINE_VERSION,
    runId: s.runId,
    savedAt: new Date().toISOString(),
    target: { url: s.target.url, embedded: s.target.embedded },
    scenarios: s.scenarios.map((x) => x.name),
    durationMs: m.durationMs ?? s.duration_ms,
    requests: m.requests ?? 0,
    dropped: m.dropped ?? 0,
    failures: m.failures ?? 0,
    latency,
    trends,
    perSecond: perSecondOf(m),
  };
}

/** Writes DIR/baseline.json; returns its path and size in bytes. */
export function saveBaseline(dir: string, s: Summary): { path: string; bytes: number } {
  makeDirsSync(dir);
  const path = join(dir, BASELINE_FILE);
  const text = JSON.stringify(baselineFromSummary(s)) + '\n';
  writeFileSync(path, text);
  return { path, bytes: Buffer.byteLength(text) };
}

function usage(message: string, field: string): PaystormError {
  return new PaystormError(message, EXIT.usage, field);
}

/**
 * A baseline from any of: a directory holding baseline.json, a baseline.json, a run directory
 * (its summary.json), or a summary.json. `field` names the flag in errors.
 */
export function loadBaseline(pathArg: string, field = '--baseline'): Baseline {
  if (!existsSync(pathArg)) throw usage(`${field}: nothing at ${pathArg}. Pass a directory written by --save-baseline, a baseline.json, or a run directory (reports/<run-id>).`, field);
  let file = pathArg;
  if (statSync(pathArg).isDirectory()) {
    const candidates = [join(pathArg, BASELINE_FILE), join(pathArg, 'summary.json')];
    const found = candidates.find((c) => existsSync(c));
    if (!found) throw usage(`${field}: ${pathArg} holds neither ${BASELINE_FILE} nor summary.json. Save one with paystorm run --save-baseline ${pathArg}.`, field);
    file = found;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw usage(`${field}: ${file} is not JSON (${(e as Error).message}). Pass a baseline.json written by --save-baseline.`, field);
  }
  const d = doc as Partial<Baseline> & Partial<Summary>;
  if (d && d.kind === 'paystorm-baseline') {
    if (d.version !== BASELINE_VERSION) throw usage(`${field}: ${file} is baseline version ${String(d.version)}; this paystorm reads version ${BASELINE_VERSION}. Save the baseline again.`, field);
    if (typeof d.latency !== 'object' || d.latency === null) throw usage(`${field}: ${file} has no latency histograms. Save the baseline again.`, field);
    return { ...d, trends: d.trends ?? {}, perSecond: d.perSecond ?? {} } as Baseline;
  }
  if (d && typeof d.runId === 'string' && d.metrics && typeof d.metrics === 'object' && Array.isArray(d.scenarios) && d.target) return baselineFromSummary(d as Summary);
  throw usage(`${field}: ${file} is neither a paystorm baseline nor a summary.json. Pass a directory written by --save-baseline.`, field);
}

/** A baseline as RunMetrics (summaries computed from its histograms), so thresholds evaluate on it as on a run. */
function baselineMetrics(b: Baseline): RunMetrics {
  const latency: RunMetrics['latency'] = {};
  for (const [op, byClass] of Object.entries(b.latency)) {
    latency[op] = {};
    for (const [cls, e] of Object.entries(byClass)) latency[op][cls] = summarizeEncoded(e.hdr);
  }
  const trends: RunMetrics['trends'] = {};
  for (const [name, e] of Object.entries(b.trends)) trends[name] = summarizeEncoded(e.hdr);
  return { requests: b.requests, dropped: b.dropped, failures: b.failures, durationMs: b.durationMs, latency, timeline: [], rate: [], trends };
}

// ---------------------------------------------------------------------------------------------
// Regression thresholds

export interface RegressionThreshold {
  expr: string;
  /** The left side as a fixed threshold (its value is a placeholder). */
  t: Threshold;
  op: Comparison;
  factor: number;
  offset: number;
}

const NUM = '(-?[0-9]+(?:\\.[0-9]+)?(?:e-?[0-9]+)?)';
const REGRESSION = new RegExp(`^(.*?)(<=|>=|<|>)\\s*baseline\\s*(?:\\*\\s*${NUM})?\\s*(?:([+-])\\s*${NUM})?\\s*$`);

/** True when the expression compares with `baseline` (a regression threshold). */
export function isRegressionExpr(expr: string): boolean {
  return /\bbaseline\b/.test(expr);
}

export function parseRegression(expr: string): RegressionThreshold {
  const m = REGRESSION.exec(expr);
  if (!m) {
    throw new ThresholdError(
      `threshold "${expr}" is not a regression threshold of the form "metric{tag:value}: aggregate < baseline * FACTOR [+ OFFSET]". Examples: "http_req_duration{op:create}: p(99) < baseline * 1.2", "http_req_failed: rate < baseline + 0.01".`,
    );
  }
  const [, lhs, op, factorText, sign, offsetText] = m;
  const t = parseThreshold(`${lhs.trim()} ${op} 0`);
  if (t.metric === 'checks') throw new ThresholdError(`threshold "${expr}": checks cannot be compared with a baseline (a baseline keeps histograms and counts, not invariant results).`);
  const factor = factorText === undefined ? 1 : Number(factorText);
  const offset = offsetText === undefined ? 0 : (sign === '-' ? -1 : 1) * Number(offsetText);
  if (!(factor > 0)) throw new ThresholdError(`threshold "${expr}": the factor must be a positive number, e.g. baseline * 1.2.`);
  return { expr: expr.trim(), t: { ...t, expr: expr.trim() }, op: op as Comparison, factor, offset };
}

/** One regression threshold, judged. */
export interface RegressionResult {
  expr: string;
  metric: string;
  base: number | null;
  value: number | null;
  limit: number | null;
  /** value / base (null when base is 0 or missing). */
  ratio: number | null;
  /** P(the new run is worse than the baseline on this statistic); null when not tested. */
  confidence: number | null;
  /** 95% interval of new/base (latency) or new−base (rates, counts). */
  interval: [number, number] | null;
  intervalKind: 'ratio' | 'diff';
  nBase: number;
  nNew: number;
  /** The value is past the limit. */
  breached: boolean;
  /** The new run is worse with at least CONFIDENCE (or the statistic has no sampling model). */
  significant: boolean;
  ok: boolean;
  note: string;
}

const HIGHER_IS_WORSE = new Set<Comparison>(['<', '<=']);


/** The encoded histograms a latency/trend threshold reads. */
function histogramsOf(m: RunMetrics, t: Threshold): string[] {
  if (t.metric === 'http_req_duration') {
    const out: string[] = [];
    for (const [op, byClass] of Object.entries(m.latency ?? {})) {
      if (t.tags.op && op !== t.tags.op) continue;
      for (const [cls, s] of Object.entries(byClass)) if ((!t.tags.outcome || cls === t.tags.outcome) && s?.count) out.push(s.hdr);
    }
    return out;
  }
  const s = m.trends?.[t.metric] as Partial<LatencySummary> | undefined;
  return s?.hdr ? [s.hdr] : [];
}

function classCount(m: RunMetrics, t: Threshold, classes: string[] | null): number {
  let n = 0;
  for (const [op, byClass] of Object.entries(m.latency ?? {})) {
    if (t.tags.op && op !== t.tags.op) continue;
    for (const [cls, s] of Object.entries(byClass)) if (!classes || classes.includes(cls)) n += s?.count ?? 0;
  }
  return n;
}

/** The sampling model of a threshold's statistic on one run (null value: no samples). */
function samplerOf(m: RunMetrics, t: Threshold): Sampler | null {
  const value = evaluateThreshold(t, m).value;
  if (value === null) return null;
  switch (t.metric) {
    case 'http_req_failed':
      return rateSampler(classCount(m, t, ['5xx', 'failure']), classCount(m, t, null));
    case 'rate_limited':
      return rateSampler(classCount(m, t, ['429']), classCount(m, t, null));
    case 'http_req_duration':
    case 'settle_time':
    case 'webhook_lag':
    case 'settle_after_heal': {
      const bins = binsOf(histogramsOf(m, t));
      if (bins.n === 0) {
        const n = t.metric === 'http_req_duration' ? classCount(m, t, t.tags.outcome ? [t.tags.outcome] : null) : (m.trends?.[t.metric]?.count ?? 0);
        return exactSampler(value, n);
      }
      if (t.aggregate === 'avg') return { ...meanSampler(bins), value };
      if (t.aggregate === 'min' || t.aggregate === 'max') return exactSampler(value, bins.n);
      return { ...percentileSampler(bins, t.aggregate === 'med' ? 50 : t.percentile!), value };
    }
    default:
      return exactSampler(value, Math.max(1, m.requests));
  }
}

const isLatency = (t: Threshold) => t.metric === 'http_req_duration' || t.metric === 'settle_time' || t.metric === 'webhook_lag' || t.metric === 'settle_after_heal';

/** One side of a comparison: the metrics and the per-second latency figures. */
export interface Side {
  m: RunMetrics;
  perSecond: PerSecond;
}

export function sideOf(m: RunMetrics): Side {
  return { m, perSecond: perSecondOf(m) };
}

/** The per-second figures a latency statistic is tested on: p50s for the median and below (and avg), p99s above. */
function secondsOf(side: Side, t: Threshold): number[] {
  const upper = t.aggregate === 'max' || (t.percentile !== null && t.percentile > 50);
  const out: number[] = [];
  for (const [op, s] of Object.entries(side.perSecond)) if (!t.tags.op || op === t.tags.op) out.push(...(upper ? s.p99 : s.p50));
  return out;
}

interface Judged {
  bs: Sampler | null;
  ns: Sampler | null;
  /** P(new worse), or null when it could not be tested. */
  confidence: number | null;
  interval: [number, number] | null;
  why: string;
}

/**
 * How sure we are that the new run is worse on the statistic: request latency with a
 * one-sided Mann-Whitney U test on per-second figures (requests in one second share the
 * machine's state, so they are not independent samples; seconds nearly are), rates and trends
 * from their sampling distributions (distribution.ts).
 */
function judge(t: Threshold, base: Side, next: Side, higherIsWorse: boolean): Judged {
  const bs = samplerOf(base.m, t);
  const ns = samplerOf(next.m, t);
  if (!bs || !ns) return { bs, ns, confidence: null, interval: null, why: !bs && !ns ? 'no samples in either run' : !bs ? 'no samples in the baseline' : 'no samples in this run' };
  if (bs.n < MIN_SAMPLES || ns.n < MIN_SAMPLES) return { bs, ns, confidence: null, interval: null, why: `too few samples to judge (${bs.n} in the baseline, ${ns.n} here; at least ${MIN_SAMPLES} each)` };
  // The per-second figures are an op's over every outcome: a threshold on one outcome (5xx
  // latency) is tested on that outcome's own histograms below, not on them.
  if (t.metric === 'http_req_duration' && t.aggregate !== 'min' && !t.tags.outcome) {
    const a = secondsOf(base, t);
    const b = secondsOf(next, t);
    if (a.length < MIN_SECONDS || b.length < MIN_SECONDS) return { bs, ns, confidence: null, interval: null, why: `too few seconds with samples to judge (${a.length} in the baseline, ${b.length} here; at least ${MIN_SECONDS} each)` };
    const up = 1 - mannWhitneyGreater(a, b);
    const down = 1 - mannWhitneyGreater(b, a);
    return { bs, ns, confidence: higherIsWorse ? up : down, interval: null, why: '' };
  }
  if (bs.exact && ns.exact) return { bs, ns, confidence: null, interval: null, why: '' };
  const c = contrast(bs, ns);
  return { bs, ns, confidence: higherIsWorse ? c.confidence : 1 - c.confidence, interval: isLatency(t) ? c.ratio : c.diff, why: '' };
}

export function evaluateRegression(r: RegressionThreshold, base: Side, next: Side): RegressionResult {
  const j = judge(r.t, base, next, HIGHER_IS_WORSE.has(r.op));
  const { bs, ns } = j;
  const out: RegressionResult = {
    expr: r.expr,
    metric: r.t.metric,
    base: bs?.value ?? null,
    value: ns?.value ?? null,
    limit: bs ? bs.value * r.factor + r.offset : null,
    ratio: bs && ns && bs.value > 0 ? ns.value / bs.value : null,
    confidence: j.confidence,
    interval: j.interval,
    intervalKind: isLatency(r.t) ? 'ratio' : 'diff',
    nBase: bs?.n ?? 0,
    nNew: ns?.n ?? 0,
    breached: false,
    significant: false,
    ok: true,
    note: j.why,
  };
  if (!bs || !ns) return out;
  out.breached = !compare(ns.value, r.op, out.limit!);
  if (j.why) return out;
  // A statistic with no sampling model (a count, a max) is taken as exact: past the limit is a regression.
  out.significant = j.confidence === null || j.confidence >= CONFIDENCE;
  out.ok = !(out.breached && out.significant);
  const conf = j.confidence === null ? 'exact' : `confidence ${pct(j.confidence)}`;
  out.note = out.breached
    ? out.significant
      ? `regression: ${fmt(ns.value)} is past the limit ${fmt(out.limit!)} (baseline ${fmt(bs.value)}), worse with ${conf}`
      : `past the limit ${fmt(out.limit!)} but not significant: ${conf} < ${pct(CONFIDENCE)} (noise)`
    : `${fmt(ns.value)} within the limit ${fmt(out.limit!)} (baseline ${fmt(bs.value)}; ${conf})`;
  return out;
}

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

/**
 * The regression thresholds `--baseline` applies when none is given: every operation's median
 * (with enough samples in the baseline) at most 1.5x the baseline's plus 5 ms, the error rate at
 * most one point above it, the settle time's median at most 1.5x plus 5 ms. Medians, not p99: on a shared runner a
 * short run's p99 swings several-fold from one run to the next (docs/baselines.md); gate a p99
 * with your own threshold and a longer run.
 */
export function defaultRegressions(b: Baseline): string[] {
  const out: string[] = [];
  for (const [op, byClass] of Object.entries(b.latency).sort()) {
    const n = Object.values(byClass).reduce((a, s) => a + s.count, 0);
    if (n >= DEFAULT_MIN_COUNT) out.push(`http_req_duration{op:${op}}: p(50) < baseline * ${DEFAULT_FACTOR} + ${DEFAULT_FLOOR_MS}`);
  }
  out.push('http_req_failed: rate < baseline + 0.01');
  if ((b.trends.settle_time?.count ?? 0) >= DEFAULT_MIN_COUNT) out.push(`settle_time: p(50) < baseline * ${DEFAULT_FACTOR} + ${DEFAULT_FLOOR_MS}`);
  return out;
}
const DEFAULT_FACTOR = 1.5;
/** An operation (or the settle time) gets a default threshold from this many samples in the baseline. */
const DEFAULT_MIN_COUNT = 30;
/** Added to the default limits: a sub-millisecond median doubles from scheduling alone on a busy machine. */
const DEFAULT_FLOOR_MS = 5;

// ---------------------------------------------------------------------------------------------
// The comparison carried by summary.json (`comparison`) and rendered by every report

export interface ComparisonRow {
  /** e.g. `create p99`, `http_req_failed`, `settle_time p99`. */
  label: string;
  unit: 'ms' | 'share';
  base: number | null;
  value: number | null;
  ratio: number | null;
  /** P(new worse); null when not tested. */
  confidence: number | null;
  nBase: number;
  nNew: number;
}

export interface DistributionPlot {
  id: string;
  title: string;
  /** CDF points: [ms, cumulative share]. */
  base: [number, number][];
  next: [number, number][];
}

export interface BaselineComparison {
  baseline: { runId: string; savedAt: string; source: string; scenarios: string[]; target: string };
  /** The test, in one sentence, for the reports. */
  test: string;
  confidenceLevel: number;
  rows: ComparisonRow[];
  regressions: RegressionResult[];
  plots: DistributionPlot[];
}

const TEST_TEXT =
  'request latency: one-sided Mann-Whitney U test on per-second p50/p99 (requests in one second share the machine, seconds are near independent); rates: Beta(x+½, n−x+½) sampling distributions; settle time and webhook lag: the percentile as an order statistic (binomial rank) from the HDR histogram. A regression needs the limit passed AND confidence ≥ 95%';

function row(label: string, unit: ComparisonRow['unit'], expr: string, base: Side, next: Side): ComparisonRow {
  const t = parseThreshold(`${expr} < 0`);
  const { bs, ns, confidence } = judge(t, base, next, true);
  return { label, unit, base: bs?.value ?? null, value: ns?.value ?? null, ratio: bs && ns && bs.value > 0 ? ns.value / bs.value : null, confidence, nBase: bs?.n ?? 0, nNew: ns?.n ?? 0 };
}

/** Compares a run's metrics with a baseline's: side-by-side rows, the regression thresholds judged, CDF plots. */
export function compareWithBaseline(b: Baseline, source: string, nextMetrics: RunMetrics, exprs: readonly string[]): BaselineComparison {
  return compareSides(b, source, sideOf(nextMetrics), exprs);
}

/** Two saved baselines (or runs loaded as baselines), for `paystorm compare BASE NEW`. */
export function compareBaselines(b: Baseline, source: string, next: Baseline, exprs: readonly string[]): BaselineComparison {
  return compareSides(b, source, { m: baselineMetrics(next), perSecond: next.perSecond ?? {} }, exprs);
}

function compareSides(b: Baseline, source: string, nextSide: Side, exprs: readonly string[]): BaselineComparison {
  const base = baselineMetrics(b);
  const baseSide: Side = { m: base, perSecond: b.perSecond ?? {} };
  const next = nextSide.m;
  const ops = new Set([...Object.keys(base.latency), ...Object.keys(next.latency ?? {})]);
  const count = (m: RunMetrics, op: string) => Object.values(m.latency?.[op] ?? {}).reduce((a, s) => a + (s?.count ?? 0), 0);
  const byVolume = [...ops].sort((a, b2) => count(next, b2) + count(base, b2) - count(next, a) - count(base, a) || a.localeCompare(b2));
  const rows: ComparisonRow[] = [];
  for (const op of byVolume) {
    for (const [agg, name] of [['p(50)', 'p50'], ['p(90)', 'p90'], ['p(99)', 'p99']] as const) rows.push(row(`${op} ${name}`, 'ms', `http_req_duration{op:${op}}: ${agg}`, baseSide, nextSide));
  }
  rows.push(row('error rate (5xx, no answer)', 'share', 'http_req_failed: rate', baseSide, nextSide));
  rows.push(row('429 rate', 'share', 'rate_limited: rate', baseSide, nextSide));
  for (const trend of ['settle_time', 'webhook_lag', 'settle_after_heal']) {
    if (base.trends[trend] || next.trends?.[trend]) {
      rows.push(row(`${trend} p50`, 'ms', `${trend}: p(50)`, baseSide, nextSide));
      rows.push(row(`${trend} p99`, 'ms', `${trend}: p(99)`, baseSide, nextSide));
    }
  }
  const plots: DistributionPlot[] = [];
  for (const op of byVolume.slice(0, 6)) {
    const t = parseThreshold(`http_req_duration{op:${op}}: p(99) < 0`);
    plots.push({ id: `cmp-${op}`, title: `${op}: latency CDF, baseline vs this run`, base: cdfPoints(binsOf(histogramsOf(base, t))), next: cdfPoints(binsOf(histogramsOf(next, t))) });
  }
  for (const trend of ['settle_time', 'webhook_lag']) {
    const t = parseThreshold(`${trend}: p(99) < 0`);
    const bb = binsOf(histogramsOf(base, t));
    const nb = binsOf(histogramsOf(next, t));
    if (bb.n || nb.n) plots.push({ id: `cmp-${trend}`, title: `${trend}: CDF, baseline vs this run`, base: cdfPoints(bb), next: cdfPoints(nb) });
  }
  const regressions = exprs.map((e) => evaluateRegression(parseRegression(e), baseSide, nextSide));
  return {
    baseline: { runId: b.runId, savedAt: b.savedAt, source, scenarios: b.scenarios, target: b.target.url },
    test: TEST_TEXT,
    confidenceLevel: CONFIDENCE,
    rows,
    regressions,
    plots,
  };
}
