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

/** The load thresholds (mixed and soak): the SLO-style defaults paystorm's load scenarios use. */
export function loadThresholds(): Thresholds {
  return {
    [metricKey('http_req_failed')]: ['rate<0.01'],
    [metricKey('http_req_duration', { op: 'create' })]: ['p(99)<800'],
    [metricKey('http_req_duration', { op: 'create_hpp' })]: ['p(99)<800'],
    [metricKey('http_req_duration', { op: 'retrieve' })]: ['p(99)<500'],
    [metricKey('http_req_duration', { op: 'list' })]: ['p(99)<800'],
    [metricKey('checks')]: ['rate>0.99'],
    // SM-6: with no faults, a pending payment settles within seconds.
    [metricKey('settle_time')]: ['p(95)<10000'],
    // Under 80% of the limit nothing should be refused; if it is, RATE is too high for the target.
    [metricKey('rate_limited')]: ['rate<0.01'],
  };
}
