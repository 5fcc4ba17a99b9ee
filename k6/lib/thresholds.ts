/**
 * Thresholds in k6 syntax over paystorm's metric names (src/spec/metrics.ts), so a
 * k6 run and a paystorm run are judged by the same names. A misspelt metric does not
 * type-check. Pure module.
 */
import type { MetricName } from '../../src/spec/metrics.ts';
import type { Operation } from '../../src/spec/operations.ts';

export type ThresholdSpec = string | { threshold: string; abortOnFail?: boolean; delayAbortEval?: string };
export type Thresholds = Record<string, ThresholdSpec[]>;

/** `metric` or `metric{tag:value}` (a k6 sub-metric). */
export function metricKey(metric: MetricName, tags?: { op?: Operation } & Record<string, string>): string {
  if (!tags || Object.keys(tags).length === 0) return metric;
  return `${metric}{${Object.entries(tags)
    .map(([k, v]) => `${k}:${v}`)
    .join(',')}}`;
}

/**
 * The load thresholds (mixed and soak). The first three are paystorm's own `mixed`
 * scenario thresholds (scenarios/mixed.ts; test/k6/lib.test.ts keeps them equal); the
 * rest judge what only the k6 run measures as a rate over the whole test.
 */
export function loadThresholds(): Thresholds {
  return {
    [metricKey('http_req_failed')]: ['rate<0.01'],
    [metricKey('http_req_duration', { op: 'create' })]: ['p(99)<2000'],
    [metricKey('http_req_duration', { op: 'retrieve' })]: ['p(99)<1000'],
    // Every rule check of the run (k6's checks rate).
    [metricKey('checks')]: ['rate>0.99'],
    // SM-6: with no faults, a pending payment settles within seconds.
    [metricKey('settle_time')]: ['p(95)<10000'],
    // Under 80% of the limit nothing should be refused; if it is, RATE is too high for the target.
    [metricKey('rate_limited')]: ['rate<0.01'],
  };
}
