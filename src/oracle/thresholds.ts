/**
 * Thresholds in k6's syntax, so k6 users read them at sight:
 *   http_req_duration{op:create}: p(99)<800
 *   http_req_failed: rate<0.01
 *   dropped_iterations: count<1
 *   settle_time: p(90)<5000
 * Metric names come from src/spec/metrics.ts; a threshold on a metric with no
 * samples in the run holds (nothing breached it) and reports value null.
 */
import * as hdr from 'hdr-histogram-js';
import { EXIT, METRICS, OPERATIONS, PaystormError, type InvariantResult, type LatencySummary, type MetricName, type RunMetrics, type ThresholdResult } from '../spec/index.ts';
import { percentileOf } from '../history/index.ts';

export type Comparison = '<' | '<=' | '>' | '>=' | '==' | '!=';
export type Aggregate = 'avg' | 'min' | 'max' | 'med' | 'count' | 'rate' | `p(${number})`;

export interface Threshold {
  expr: string;
  metric: MetricName;
  tags: Record<string, string>;
  aggregate: Aggregate;
  /** For p(N). */
  percentile: number | null;
  op: Comparison;
  value: number;
}

export class ThresholdError extends PaystormError {
  constructor(message: string) {
    super(message, EXIT.usage, '--threshold');
    this.name = 'ThresholdError';
  }
}

/** Aggregations k6 allows per metric kind. */
const AGGREGATES_BY_KIND: Record<string, readonly string[]> = {
  trend: ['avg', 'min', 'max', 'med', 'p(N)'],
  rate: ['rate'],
  counter: ['count', 'rate'],
};
/** Outcome classes the latency series are split by. */
const OUTCOMES = ['2xx', '3xx', '4xx', '429', '5xx', 'failure'];
/** Tags each metric can be filtered by. */
const TAGS_BY_METRIC: Partial<Record<MetricName, Record<string, readonly string[]>>> = {
  http_req_duration: { op: OPERATIONS, outcome: OUTCOMES },
  http_req_failed: { op: OPERATIONS },
  http_reqs: { op: OPERATIONS, outcome: OUTCOMES },
  rate_limited: { op: OPERATIONS },
};
/** Percentiles kept for paystorm's own trends (they carry no histogram). */
const TREND_PERCENTILES: Record<string, keyof LatencySummary> = { '50': 'p50', '90': 'p90', '99': 'p99', '99.9': 'p999' };
const TREND_METRICS = new Set<MetricName>(['settle_time', 'settle_after_heal', 'webhook_lag']);

const EXPR = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\{([^}]*)\})?\s*:\s*([a-z]+(?:\(\s*[0-9.]+\s*\))?)\s*(<=|>=|==|!=|<|>|===)\s*(-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?)\s*$/;

export function parseThreshold(expr: string): Threshold {
  const m = EXPR.exec(expr);
  if (!m) {
    throw new ThresholdError(
      `threshold "${expr}" is not in k6's form "metric{tag:value}: aggregate<number>". Examples: "http_req_duration{op:create}: p(99)<800", "http_req_failed: rate<0.01", "dropped_iterations: count<1".`,
    );
  }
  const [, name, tagText, aggText, opText, valueText] = m;
  if (!(name in METRICS)) {
    throw new ThresholdError(`threshold "${expr}": unknown metric "${name}". Known metrics: ${Object.keys(METRICS).join(', ')}.`);
  }
  const metric = name as MetricName;
  const kind = METRICS[metric].kind;
  const tags: Record<string, string> = {};
  if (tagText !== undefined && tagText.trim() !== '') {
    const allowed = TAGS_BY_METRIC[metric] ?? {};
    for (const part of tagText.split(',')) {
      const colon = part.indexOf(':');
      if (colon < 0) throw new ThresholdError(`threshold "${expr}": tag "${part.trim()}" needs the form name:value, e.g. {op:create}.`);
      const tag = part.slice(0, colon).trim();
      const value = part.slice(colon + 1).trim().replace(/^["']|["']$/g, '');
      if (!(tag in allowed)) {
        const names = Object.keys(allowed);
        throw new ThresholdError(`threshold "${expr}": ${metric} has no tag "${tag}"` + (names.length ? ` (it takes ${names.join(', ')})` : ' (it takes no tags)') + '.');
      }
      if (!allowed[tag].includes(value)) throw new ThresholdError(`threshold "${expr}": ${tag} "${value}" is not one of ${allowed[tag].join(', ')}.`);
      tags[tag] = value;
    }
  }
  const agg = aggText.replace(/\s+/g, '');
  const pm = /^p\(([0-9.]+)\)$/.exec(agg);
  let percentile: number | null = null;
  if (pm) {
    percentile = Number(pm[1]);
    if (!(percentile >= 0 && percentile <= 100)) throw new ThresholdError(`threshold "${expr}": percentile ${pm[1]} is outside 0..100.`);
  }
  const aggKind = pm ? 'p(N)' : agg;
  const allowedAggs = AGGREGATES_BY_KIND[kind] ?? [];
  if (!allowedAggs.includes(aggKind)) {
    throw new ThresholdError(`threshold "${expr}": ${metric} is a ${kind}; use ${allowedAggs.join(', ')} instead of ${agg}.`);
  }
  if (percentile !== null && TREND_METRICS.has(metric) && !(String(percentile) in TREND_PERCENTILES)) {
    throw new ThresholdError(`threshold "${expr}": paystorm keeps p(50), p(90), p(99) and p(99.9) of ${metric}; use one of those.`);
  }
  const value = Number(valueText);
  if (!Number.isFinite(value)) throw new ThresholdError(`threshold "${expr}": ${valueText} is not a number.`);
  return { expr: expr.trim(), metric, tags, aggregate: agg as Aggregate, percentile, op: (opText === '===' ? '==' : opText) as Comparison, value };
}

/** `a op b` for a threshold's comparison. */
export function compare(a: number, op: Comparison, b: number): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
}

/** Latency series matching the tags. */
function latencySeries(metrics: RunMetrics, tags: Record<string, string>): LatencySummary[] {
  const out: LatencySummary[] = [];
  for (const [op, byClass] of Object.entries(metrics.latency ?? {})) {
    if (tags.op && op !== tags.op) continue;
    for (const [cls, s] of Object.entries(byClass)) {
      if (tags.outcome && cls !== tags.outcome) continue;
      if (s && s.count > 0) out.push(s);
    }
  }
  return out;
}

/** A distribution's statistic, merging series exactly through their HDR histograms. */
function trendValue(series: LatencySummary[], t: Threshold): number | null {
  if (series.length === 0) return null;
  const count = series.reduce((n, s) => n + s.count, 0);
  if (count === 0) return null;
  if (t.aggregate === 'min') return Math.min(...series.map((s) => s.min));
  if (t.aggregate === 'max') return Math.max(...series.map((s) => s.max));
  if (t.aggregate === 'avg') return series.reduce((n, s) => n + s.mean * s.count, 0) / count;
  const p = t.aggregate === 'med' ? 50 : t.percentile!;
  if (series.length === 1 && String(p) in TREND_PERCENTILES) return series[0][TREND_PERCENTILES[String(p)]] as number;
  if (series.every((s) => typeof s.hdr === 'string' && s.hdr.length > 0)) {
    const [first, ...rest] = series.map((s) => hdr.decodeFromCompressedBase64(s.hdr, 32, false));
    for (const h of rest) first.add(h);
    const v = percentileOf(first, p) / 1000;
    first.destroy();
    return v;
  }
  // No histograms to merge: the largest per-series percentile bounds the merged one from above.
  if (String(p) in TREND_PERCENTILES) return Math.max(...series.map((s) => s[TREND_PERCENTILES[String(p)]] as number));
  throw new Error(`p(${p}) needs the latency histograms, which these metrics do not carry`);
}

export interface EvaluateOptions {
  /** For the `checks` metric: the invariant results. */
  invariants?: readonly InvariantResult[];
}

export function evaluateThreshold(t: Threshold, metrics: RunMetrics, opts: EvaluateOptions = {}): ThresholdResult {
  let value: number | null = null;
  const seconds = Math.max(metrics.durationMs, 1) / 1000;
  /** Requests of the tagged op in the given outcome classes (all classes when null). */
  const classCount = (classes: string[] | null): number => {
    let n = 0;
    for (const [op, byClass] of Object.entries(metrics.latency ?? {})) {
      if (t.tags.op && op !== t.tags.op) continue;
      for (const [cls, s] of Object.entries(byClass)) if (!classes || classes.includes(cls)) n += s?.count ?? 0;
    }
    return n;
  };
  switch (t.metric) {
    case 'http_req_duration':
      value = trendValue(latencySeries(metrics, t.tags), t);
      break;
    case 'http_req_failed': {
      const total = classCount(null);
      value = total ? classCount(['5xx', 'failure']) / total : null;
      break;
    }
    case 'rate_limited': {
      const total = classCount(null);
      value = total ? classCount(['429']) / total : null;
      break;
    }
    case 'http_reqs': {
      const n = t.tags.op || t.tags.outcome ? latencySeries(metrics, t.tags).reduce((a, s) => a + s.count, 0) : metrics.requests;
      value = t.aggregate === 'rate' ? n / seconds : n;
      break;
    }
    case 'dropped_iterations':
      value = t.aggregate === 'rate' ? metrics.dropped / seconds : metrics.dropped;
      break;
    case 'checks': {
      const inv = opts.invariants ?? [];
      const checked = inv.reduce((n, i) => n + i.checked, 0);
      const bad = inv.reduce((n, i) => n + Math.min(i.violations, i.checked), 0);
      value = checked ? (checked - bad) / checked : null;
      break;
    }
    default: {
      const s = metrics.trends?.[t.metric];
      value = s && s.count > 0 ? trendValue([{ ...s, hdr: (s as Partial<LatencySummary>).hdr ?? '' }], t) : null;
    }
  }
  return { metric: t.metric, expr: t.expr, value, ok: value === null || compare(value, t.op, t.value) };
}

/** Parses (throwing ThresholdError on a bad expression) and evaluates every threshold. */
export function evaluateThresholds(exprs: readonly string[], metrics: RunMetrics, opts: EvaluateOptions = {}): ThresholdResult[] {
  const parsed = exprs.map(parseThreshold);
  return parsed.map((t) => evaluateThreshold(t, metrics, opts));
}

/**
 * What a threshold is about: metric, tags, aggregate and comparison, so `p(99)<3000` and
 * `p(99)<2000` on one metric are the same threshold with two limits. An expression that is no
 * plain threshold (a regression or drift one) is its own key.
 */
export function thresholdKey(expr: string): string {
  let t: Threshold;
  try {
    t = parseThreshold(expr);
  } catch {
    return expr.trim();
  }
  return keyOf(t);
}

/** thresholdKey of an expression already parsed. */
function keyOf(t: Threshold): string {
  return `${t.metric}{${Object.entries(t.tags).sort().map(([k, v]) => `${k}:${v}`).join(',')}}:${t.aggregate}:${t.op}`;
}

/**
 * Whether the user's thresholds replace a scenario's default one: a user's threshold on the same
 * metric, tags, aggregate and comparison (thresholdKey) does (docs/oracle.md), so a team may
 * loosen or tighten a default for its own deployment; the default is then not judged at all.
 */
export function replacedByUser(userExprs: Iterable<string>): (defaultExpr: string) => boolean {
  const userKeys = new Set([...userExprs].map(thresholdKey));
  return (defaultExpr) => userKeys.has(thresholdKey(defaultExpr));
}

/** Thresholds in force: scenario defaults, then the config file, then flags; a later one replaces an earlier one on the same metric, tags, aggregate and comparison (thresholdKey). */
export function mergeThresholds(...sources: (readonly string[] | undefined)[]): string[] {
  const byKey = new Map<string, string>();
  for (const src of sources) {
    for (const expr of src ?? []) {
      const t = parseThreshold(expr);
      const key = keyOf(t);
      byKey.delete(key);
      byKey.set(key, t.expr);
    }
  }
  return [...byKey.values()];
}
