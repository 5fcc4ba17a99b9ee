/**
 * Validation of a k6 `options` object as k6 would read it, from k6's docs and source:
 * - scenarios: executor names and their options (grafana.com/docs/k6/latest/using-k6/scenarios/executors/*);
 * - thresholds: the expression grammar of k6's metrics/thresholds_parser.go
 *   (`aggregation_method operator value`, operators tried in the order <=, <, >=, >, ===, ==, !=)
 *   and the aggregation methods allowed per metric type (using-k6/thresholds).
 * Returns problems as strings; empty means valid.
 */
import { METRICS, type MetricName } from '../../src/spec/metrics.ts';

const COMMON = ['executor', 'startTime', 'gracefulStop', 'exec', 'env', 'tags', 'options'];
export const EXECUTORS: Record<string, { required: string[]; optional: string[] }> = {
  'shared-iterations': { required: [], optional: ['vus', 'iterations', 'maxDuration'] },
  'per-vu-iterations': { required: [], optional: ['vus', 'iterations', 'maxDuration'] },
  'constant-vus': { required: ['duration'], optional: ['vus'] },
  'ramping-vus': { required: ['stages'], optional: ['startVUs', 'gracefulRampDown'] },
  'constant-arrival-rate': { required: ['duration', 'rate', 'preAllocatedVUs'], optional: ['timeUnit', 'maxVUs'] },
  'ramping-arrival-rate': { required: ['stages', 'preAllocatedVUs'], optional: ['startRate', 'timeUnit', 'maxVUs'] },
};
const DURATION_KEYS = ['startTime', 'gracefulStop', 'maxDuration', 'duration', 'timeUnit', 'gracefulRampDown'];
const INT_KEYS = ['vus', 'iterations', 'rate', 'preAllocatedVUs', 'maxVUs', 'startVUs', 'startRate'];
/** Go's time.ParseDuration units that k6 accepts in options. */
const GO_DURATION = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

export function validateScenarios(scenarios: unknown, exportedFunctions: readonly string[]): string[] {
  const problems: string[] = [];
  if (typeof scenarios !== 'object' || scenarios === null) return ['options.scenarios is missing'];
  for (const [name, raw] of Object.entries(scenarios as Record<string, unknown>)) {
    const sc = raw as Record<string, unknown>;
    if (!/^[A-Za-z0-9_-]+$/.test(name)) problems.push(`scenario name "${name}" has characters k6 refuses`);
    const ex = EXECUTORS[String(sc.executor)];
    if (!ex) {
      problems.push(`${name}: unknown executor ${String(sc.executor)}`);
      continue;
    }
    for (const k of ex.required) if (!(k in sc)) problems.push(`${name}: ${sc.executor} requires ${k}`);
    for (const k of Object.keys(sc)) if (!COMMON.includes(k) && !ex.required.includes(k) && !ex.optional.includes(k)) problems.push(`${name}: ${sc.executor} has no option ${k}`);
    for (const k of DURATION_KEYS) if (k in sc && !(typeof sc[k] === 'string' && GO_DURATION.test(sc[k] as string))) problems.push(`${name}: ${k} is not a duration: ${String(sc[k])}`);
    for (const k of INT_KEYS) if (k in sc && !(Number.isInteger(sc[k]) && (sc[k] as number) >= (k === 'startVUs' || k === 'startRate' ? 0 : 1))) problems.push(`${name}: ${k} must be a positive integer, got ${String(sc[k])}`);
    if ('maxVUs' in sc && 'preAllocatedVUs' in sc && (sc.maxVUs as number) < (sc.preAllocatedVUs as number)) problems.push(`${name}: maxVUs below preAllocatedVUs`);
    const exec = (sc.exec as string | undefined) ?? 'default';
    if (!exportedFunctions.includes(exec)) problems.push(`${name}: exec ${exec} is not an exported function`);
  }
  return problems;
}

const OPERATORS = ['<=', '<', '>=', '>', '===', '==', '!='];
const FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const METHODS_BY_KIND: Record<string, RegExp> = {
  counter: /^(count|rate)$/,
  gauge: /^value$/,
  rate: /^rate$/,
  trend: /^(avg|min|max|med|p\(.+\))$/,
};

export interface ParsedThreshold {
  method: string;
  percentile: number | null;
  operator: string;
  value: number;
}

/** k6's parseThresholdExpression, ported. */
export function parseThresholdExpression(input: string): ParsedThreshold {
  let lhs = '';
  let op = '';
  let rhs = '';
  for (const o of OPERATORS) {
    const i = input.indexOf(o);
    if (i >= 0) {
      lhs = input.slice(0, i).trim();
      op = o;
      rhs = input.slice(i + o.length).trim();
      break;
    }
  }
  if (!op) throw new Error(`malformed threshold expression ${JSON.stringify(input)}`);
  let percentile: number | null = null;
  let method = lhs;
  if (!['value', 'count', 'rate', 'avg', 'min', 'med', 'max'].includes(lhs)) {
    const m = /^p\((.*)\)$/.exec(lhs);
    if (!m || !FLOAT.test(m[1])) throw new Error(`failed parsing method from ${JSON.stringify(input)}`);
    percentile = Number(m[1]);
    if (!(percentile >= 0 && percentile <= 100)) throw new Error(`percentile out of 0..100 in ${JSON.stringify(input)}`);
    method = 'p';
  }
  if (!FLOAT.test(rhs)) throw new Error(`failed parsing right hand side of ${JSON.stringify(input)}`);
  return { method, percentile, operator: op, value: Number(rhs) };
}

/** `name` or `name{tag:value,…}`. */
export function parseMetricKey(key: string): { name: string; tags: Record<string, string> } {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(\{(.*)\})?$/.exec(key);
  if (!m) throw new Error(`bad metric key ${key}`);
  const tags: Record<string, string> = {};
  if (m[3] !== undefined) {
    for (const part of m[3].split(',')) {
      const i = part.indexOf(':');
      if (i <= 0 || i === part.length - 1) throw new Error(`bad sub-metric selector in ${key}`);
      tags[part.slice(0, i).trim()] = part.slice(i + 1).trim();
    }
  }
  return { name: m[1], tags };
}

/** Each threshold: a paystorm metric name (src/spec/metrics.ts), a parseable expression, an aggregation its kind allows. */
export function validateThresholds(thresholds: unknown): string[] {
  const problems: string[] = [];
  if (typeof thresholds !== 'object' || thresholds === null) return ['options.thresholds is missing'];
  for (const [key, list] of Object.entries(thresholds as Record<string, unknown>)) {
    let name: string;
    try {
      name = parseMetricKey(key).name;
    } catch (e) {
      problems.push((e as Error).message);
      continue;
    }
    const metric = METRICS[name as MetricName];
    if (!metric) {
      problems.push(`${key}: ${name} is not one of paystorm's metric names`);
      continue;
    }
    if (!Array.isArray(list) || list.length === 0) {
      problems.push(`${key}: thresholds must be a non-empty array`);
      continue;
    }
    for (const t of list) {
      const expr = typeof t === 'string' ? t : (t as { threshold?: unknown }).threshold;
      if (typeof expr !== 'string') {
        problems.push(`${key}: a threshold object needs a threshold string`);
        continue;
      }
      if (typeof t === 'object' && t !== null) {
        for (const k of Object.keys(t)) if (!['threshold', 'abortOnFail', 'delayAbortEval'].includes(k)) problems.push(`${key}: unknown threshold field ${k}`);
        const d = (t as { delayAbortEval?: unknown }).delayAbortEval;
        if (d !== undefined && !(typeof d === 'string' && GO_DURATION.test(d))) problems.push(`${key}: delayAbortEval is not a duration`);
      }
      try {
        const p = parseThresholdExpression(expr);
        const label = p.method === 'p' ? 'p(N)' : p.method;
        if (!METHODS_BY_KIND[metric.kind].test(p.method === 'p' ? `p(${p.percentile})` : p.method)) problems.push(`${key}: ${label} does not apply to a ${metric.kind} metric`);
      } catch (e) {
        problems.push(`${key}: ${(e as Error).message}`);
      }
    }
  }
  return problems;
}

/**
 * The system tag names k6 knows (metrics/system_tag.go: the default set, then vu, iter,
 * ocsp_status, ip). k6 drops an unknown name from `systemTags` without a word.
 */
const K6_SYSTEM_TAG_NAMES = ['proto', 'subproto', 'status', 'method', 'url', 'name', 'group', 'check', 'error', 'error_code', 'tls_version', 'scenario', 'service', 'expected_response', 'iter', 'vu', 'ocsp_status', 'ip'];

export function validateSystemTags(tags: unknown): string[] {
  if (!Array.isArray(tags)) return ['options.systemTags is not a list'];
  return tags.filter((t) => !K6_SYSTEM_TAG_NAMES.includes(t as string)).map((t) => `systemTags: ${String(t)} is not a k6 system tag`);
}
