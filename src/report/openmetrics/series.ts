/**
 * The series `--metrics-port` exports, declared once: their names, help, labels and the latency
 * buckets. Names follow Prometheus's conventions: the `paystorm_` prefix, the unit in the name
 * (seconds), counters end in `_total` (in the OpenMetrics format their family is the name without
 * it, as prom-client writes it). No label ever holds a key: `key` holds its label
 * (`acme/test/…b605`), as every artifact of a run does.
 */
import { Counter, Gauge, Histogram, Registry, type OpenMetricsContentType } from 'prom-client';

/**
 * Latency buckets (seconds), 1 ms to 60 s in 1-2-5 steps: fine enough that a p99 read from them
 * by `histogram_quantile` lands in the bucket of the run's own (HDR) p99.
 */
export const LATENCY_BUCKETS_SECONDS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 60] as const;

type Kind = 'counter' | 'gauge' | 'histogram';

interface SeriesSpec {
  kind: Kind;
  help: string;
  labels: readonly string[];
}

/** Every series, by the name its samples carry (a histogram's add `_bucket`, `_sum`, `_count`). */
export const SERIES = {
  paystorm_requests_total: {
    kind: 'counter',
    help: 'Requests answered or failed, by operation, status class (2xx, 3xx, 4xx, 429, 5xx; failure: no response) and scenario',
    labels: ['op', 'status_class', 'scenario'],
  },
  paystorm_request_duration_seconds: {
    kind: 'histogram',
    help: 'Request latency in seconds by operation, from the intended start (open-model executors) to the end of the response, as the run report measures it',
    labels: ['op'],
  },
  paystorm_rate_limited_total: { kind: 'counter', help: 'Requests answered 429, by key label and scenario', labels: ['key', 'scenario'] },
  paystorm_connection_errors_total: {
    kind: 'counter',
    help: 'Requests that got no response, by operation and what happened (timeout, reset, refused, other)',
    labels: ['op', 'kind'],
  },
  paystorm_dropped_iterations_total: { kind: 'counter', help: 'Open-model iterations that could not start in time, by scenario', labels: ['scenario'] },
  paystorm_open_payments: { kind: 'gauge', help: 'Payments created and not yet seen in a terminal status', labels: [] },
  paystorm_webhook_deliveries_total: {
    kind: 'counter',
    help: 'Webhook deliveries the receiver got, by event type and signature verdict (ok, missing, malformed, mismatch, stale)',
    labels: ['type', 'signature'],
  },
  paystorm_webhook_failures_injected_total: {
    kind: 'counter',
    help: 'Webhook deliveries the receiver failed on purpose so retries are judged: fail (answered 500) or stall (held past the acknowledge time)',
    labels: ['kind'],
  },
  paystorm_faults_active: { kind: 'gauge', help: 'Fault windows open now, by proxy and toxic type', labels: ['proxy', 'toxic'] },
  paystorm_fault_windows_total: { kind: 'counter', help: 'Fault windows closed, by proxy and toxic type', labels: ['proxy', 'toxic'] },
  paystorm_violations_total: { kind: 'counter', help: 'Violations the oracle confirmed, by invariant', labels: ['invariant'] },
} as const satisfies Record<string, SeriesSpec>;

export type SeriesName = keyof typeof SERIES;

type Labels<N extends SeriesName> = (typeof SERIES)[N]['labels'][number];

export interface RunSeries {
  registry: Registry<OpenMetricsContentType>;
  requests: Counter<Labels<'paystorm_requests_total'>>;
  duration: Histogram<Labels<'paystorm_request_duration_seconds'>>;
  rateLimited: Counter<Labels<'paystorm_rate_limited_total'>>;
  connectionErrors: Counter<Labels<'paystorm_connection_errors_total'>>;
  dropped: Counter<Labels<'paystorm_dropped_iterations_total'>>;
  openPayments: Gauge<Labels<'paystorm_open_payments'>>;
  webhookDeliveries: Counter<Labels<'paystorm_webhook_deliveries_total'>>;
  webhookFailuresInjected: Counter<Labels<'paystorm_webhook_failures_injected_total'>>;
  faultsActive: Gauge<Labels<'paystorm_faults_active'>>;
  faultWindows: Counter<Labels<'paystorm_fault_windows_total'>>;
  violations: Counter<Labels<'paystorm_violations_total'>>;
}

/** A fresh registry (OpenMetrics) holding every series; `collectFaults` refreshes the active-fault gauge at each scrape. */
export function createRunSeries(collectFaults: (gauge: Gauge<'proxy' | 'toxic'>) => void): RunSeries {
  const registry = new Registry<OpenMetricsContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  const opts = <N extends SeriesName>(name: N) => ({ name, help: SERIES[name].help, labelNames: [...SERIES[name].labels] as Labels<N>[], registers: [registry] });
  return {
    registry,
    requests: new Counter(opts('paystorm_requests_total')),
    duration: new Histogram({ ...opts('paystorm_request_duration_seconds'), buckets: [...LATENCY_BUCKETS_SECONDS] }),
    rateLimited: new Counter(opts('paystorm_rate_limited_total')),
    connectionErrors: new Counter(opts('paystorm_connection_errors_total')),
    dropped: new Counter(opts('paystorm_dropped_iterations_total')),
    openPayments: new Gauge(opts('paystorm_open_payments')),
    webhookDeliveries: new Counter(opts('paystorm_webhook_deliveries_total')),
    webhookFailuresInjected: new Counter(opts('paystorm_webhook_failures_injected_total')),
    faultsActive: new Gauge({
      ...opts('paystorm_faults_active'),
      collect() {
        collectFaults(this);
      },
    }),
    faultWindows: new Counter(opts('paystorm_fault_windows_total')),
    violations: new Counter(opts('paystorm_violations_total')),
  };
}
