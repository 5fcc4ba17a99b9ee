/**
 * Metric names thresholds may use, in k6's syntax (`http_req_duration{op:create}: p(99)<800`).
 * k6's own names plus paystorm's: defined once here.
 */
export const METRICS = {
  http_req_duration: { kind: 'trend', unit: 'ms', help: 'Request latency (from the intended start in open-model executors)' },
  http_req_failed: { kind: 'rate', unit: '', help: 'Share of requests with no response or a 5xx' },
  http_reqs: { kind: 'counter', unit: '', help: 'Requests sent' },
  dropped_iterations: { kind: 'counter', unit: '', help: 'Open-model iterations that could not start for lack of capacity' },
  checks: { kind: 'rate', unit: '', help: 'Share of invariant checks that passed' },
  settle_time: { kind: 'trend', unit: 'ms', help: 'Create to first observed terminal status' },
  settle_after_heal: { kind: 'trend', unit: 'ms', help: 'Fault healed to the last pending payment settled' },
  webhook_lag: { kind: 'trend', unit: 'ms', help: 'Terminal status first observed to first delivery received' },
  rate_limited: { kind: 'rate', unit: '', help: 'Share of requests answered 429' },
} as const;
export type MetricName = keyof typeof METRICS;
export const THRESHOLD_AGGREGATES = ['avg', 'min', 'max', 'med', 'count', 'rate', 'p(N)'] as const;
