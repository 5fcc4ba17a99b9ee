/**
 * Turns the run's metrics into chart specs the page script draws with uPlot. All the
 * data shaping happens here (typed, unit-tested); the browser side only draws.
 * x is seconds since the run started on every chart, so fault windows line up.
 */
import { OPERATIONS } from '../../spec/operations.ts';
import type { RunMetrics } from '../../spec/scenario.ts';
import type { Summary } from '../../spec/summary.ts';
import { boundTimeline, MAX_REPORT_POINTS } from '../bound.ts';

export interface SeriesSpec {
  label: string;
  values: (number | null)[];
  color: string;
  width?: number;
  dash?: number[];
  /** Draw markers only, no line (e.g. 429 responses). */
  pointsOnly?: boolean;
  /** Stepped line (rate-limit counters change in steps). */
  stepped?: boolean;
  /** Scale id; 'y' unless the series has its own right-hand axis. */
  scale?: string;
}

export interface FaultBand {
  start: number;
  end: number;
  label: string;
}

export interface ChartSpec {
  id: string;
  group: 'throughput' | 'latency' | 'rate';
  title: string;
  yLabel: string;
  /** Label of the right-hand axis, when some series use scale 'y2'. */
  y2Label?: string;
  x: number[];
  /** The run's span in seconds: every chart shows all of it, so fault windows line up across charts. */
  xMin: number;
  xMax: number;
  series: SeriesSpec[];
  faults: FaultBand[];
  /** Vertical markers (rate-limit window edges), seconds. */
  edges: number[];
}

const PALETTE = {
  requests: '#1f2937',
  s2xx: '#16a34a',
  s4xx: '#d97706',
  s5xx: '#dc2626',
  s429: '#7c3aed',
  failures: '#be185d',
  inFlight: '#0284c7',
  p50: '#2563eb',
  p99: '#dc2626',
  remaining: '#2563eb',
  limit: '#6b7280',
  refused: '#dc2626',
};

/** What a fault band is drawn from: a summary's fault, or a fault record while the run goes. */
export type FaultWindow = Pick<Summary['faults'][number], 'tStart' | 'tEnd' | 'type' | 'link'>;

export function faultBands(summary: { faults: readonly FaultWindow[] }): FaultBand[] {
  return summary.faults
    .map((f) => ({ start: f.tStart / 1000, end: Math.max(f.tEnd, f.tStart) / 1000, label: `${f.type} (${f.link})` }))
    .sort((a, b) => a.start - b.start);
}

/** Operations in the catalog's order, then any others the metrics name. */
export function operationsInTimeline(m: RunMetrics): string[] {
  const seen = new Set<string>();
  for (const p of m.timeline) for (const op of Object.keys(p.latency)) seen.add(op);
  const known = OPERATIONS.filter((op) => seen.has(op));
  const other = [...seen].filter((op) => !(OPERATIONS as readonly string[]).includes(op)).sort();
  return [...known, ...other];
}

export function throughputChart(m: RunMetrics, faults: FaultBand[]): ChartSpec {
  const tl = m.timeline;
  const s = (label: string, color: string, pick: (p: RunMetrics['timeline'][number]) => number, extra: Partial<SeriesSpec> = {}): SeriesSpec => ({
    label,
    color,
    values: tl.map(pick),
    ...extra,
  });
  return {
    id: 'chart-throughput',
    group: 'throughput',
    title: 'Throughput and status classes per second',
    yLabel: 'responses / s',
    y2Label: 'in flight',
    x: tl.map((p) => p.t),
    series: [
      s('requests', PALETTE.requests, (p) => p.requests, { width: 2 }),
      s('2xx', PALETTE.s2xx, (p) => p.s2xx),
      s('4xx', PALETTE.s4xx, (p) => p.s4xx),
      s('5xx', PALETTE.s5xx, (p) => p.s5xx),
      s('429', PALETTE.s429, (p) => p.s429),
      s('failures', PALETTE.failures, (p) => p.failures, { dash: [4, 3] }),
      s('in flight', PALETTE.inFlight, (p) => p.inFlight, { scale: 'y2', dash: [2, 2] }),
    ],
    xMin: 0,
    xMax: 0,
    faults,
    edges: [],
  };
}

export function latencyCharts(m: RunMetrics, faults: FaultBand[]): ChartSpec[] {
  const x = m.timeline.map((p) => p.t);
  return operationsInTimeline(m).map((op) => ({
    id: `chart-latency-${slug(op)}`,
    group: 'latency' as const,
    title: `Latency: ${op}`,
    yLabel: 'ms',
    x,
    series: [
      { label: 'p50', color: PALETTE.p50, values: m.timeline.map((p) => p.latency[op]?.p50 ?? null), width: 1.5 },
      { label: 'p99', color: PALETTE.p99, values: m.timeline.map((p) => p.latency[op]?.p99 ?? null), width: 1.5 },
    ],
    xMin: 0,
    xMax: 0,
    faults,
    edges: [],
  }));
}

/**
 * One chart per key: remaining over time, the limit, 429 answers as markers, and a
 * vertical line where X-RateLimit-Reset changes (a new window began).
 */
export function rateCharts(m: RunMetrics, faults: FaultBand[]): ChartSpec[] {
  const byKey = new Map<string, RunMetrics['rate']>();
  for (const s of m.rate) {
    const list = byKey.get(s.key) ?? [];
    list.push(s);
    byKey.set(s.key, list);
  }
  return [...byKey.entries()].map(([key, samples]) => {
    const edges: number[] = [];
    let lastReset: number | null = null;
    for (const s of samples) {
      if (s.reset === null) continue;
      if (lastReset !== null && s.reset !== lastReset) edges.push(s.t / 1000);
      lastReset = s.reset;
    }
    return {
      id: `chart-rate-${slug(key)}`,
      group: 'rate' as const,
      title: `Rate limit: ${key}`,
      yLabel: 'requests',
      x: samples.map((s) => s.t / 1000),
      series: [
        { label: 'remaining', color: PALETTE.remaining, values: samples.map((s) => s.remaining), stepped: true, width: 1.5 },
        { label: 'limit', color: PALETTE.limit, values: samples.map((s) => s.limit), stepped: true, dash: [6, 4], width: 1.5 },
        { label: '429', color: PALETTE.refused, values: samples.map((s) => (s.status === 429 ? (s.remaining ?? 0) : null)), pointsOnly: true },
      ],
      xMin: 0,
      xMax: 0,
      faults,
      edges,
    };
  });
}

/** Every chart of the report, in page order (a run past 4 hours charted in buckets of whole seconds: bound.ts). Charts with no x values are still listed: the page shows "no data". */
export function buildCharts(summary: Summary, m: RunMetrics): ChartSpec[] {
  return chartsFor({ ...m, timeline: boundTimeline(m.timeline, MAX_REPORT_POINTS) }, faultBands(summary), Math.max(summary.duration_ms, m.durationMs) / 1000);
}

/** The charts of `m`, every one spanning at least `spanS` seconds (the run's length), its faults and its data. */
export function chartsFor(m: RunMetrics, faults: FaultBand[], spanS: number): ChartSpec[] {
  const charts = [throughputChart(m, faults), ...latencyCharts(m, faults), ...rateCharts(m, faults)];
  const xMax = Math.max(spanS, ...faults.map((f) => f.end), ...charts.map((c) => c.x.at(-1) ?? 0));
  for (const c of charts) c.xMax = Math.ceil(xMax);
  return charts;
}

/** Count of drawn values (non-null y across series), what `data-points` reports. */
export function pointCount(c: ChartSpec): number {
  let n = 0;
  for (const s of c.series) for (const v of s.values) if (v !== null) n++;
  return n;
}

function slug(s: string): string {
  let h = 0;
  for (const ch of s) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  // The hash keeps ids unique when two labels slug to the same text (`m1/test/…ab` vs `m1-test-ab`).
  return `${s.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase()}-${h.toString(36)}`;
}
