/** The run's OpenMetrics endpoint (`--metrics-port`): its series, the watcher that fills them, the HTTP endpoint. */
export { SERIES, LATENCY_BUCKETS_SECONDS, type SeriesName } from './series.ts';
export { RunMetricsExporter, type ActiveFault } from './exporter.ts';
export { startMetricsEndpoint, METRICS_PATH, FINAL_SCRAPE_WAIT_MAX_MS, FINAL_SCRAPE_WAIT_MIN_MS, type MetricsEndpoint } from './endpoint.ts';
