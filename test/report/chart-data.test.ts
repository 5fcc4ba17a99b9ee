import { describe, expect, it } from 'vitest';
import { buildCharts, faultBands, pointCount } from '../../src/report/html/chart-data.ts';
import { readMetrics } from '../../src/report/metrics.ts';
import { fixtureSummary, KEY_A, KEY_B, LIMIT } from './fixture.ts';

describe('chart data', () => {
  const s = fixtureSummary();
  const charts = buildCharts(s, readMetrics(s.metrics));

  it('builds a throughput chart, one latency chart per operation, one rate chart per key', () => {
    expect(charts.map((c) => c.title)).toEqual([
      'Throughput and status classes per second',
      'Latency: create',
      'Latency: retrieve',
      'Latency: list',
      'Latency: refund',
      `Rate limit: ${KEY_A}`,
      `Rate limit: ${KEY_B}`,
    ]);
    expect(new Set(charts.map((c) => c.id)).size).toBe(charts.length);
    for (const c of charts) {
      expect(pointCount(c)).toBeGreaterThan(0);
      for (const series of c.series) expect(series.values).toHaveLength(c.x.length);
    }
  });

  it('puts fault windows in seconds on every chart', () => {
    expect(faultBands(s)).toEqual([
      { start: 20, end: 35, label: 'latency (upstream)' },
      { start: 45, end: 48, label: 'reset_peer (client)' },
    ]);
    for (const c of charts) expect(c.faults).toHaveLength(2);
  });

  it('marks a window edge where X-RateLimit-Reset changes, per key', () => {
    const a = charts.find((c) => c.title.endsWith(KEY_A))!;
    const b = charts.find((c) => c.title.endsWith(KEY_B))!;
    expect(a.edges).toEqual([30.2]);
    expect(b.edges).toEqual([35]);
    expect(a.series.find((x) => x.label === 'limit')!.values.every((v) => v === LIMIT)).toBe(true);
    const refused = a.series.find((x) => x.label === '429')!.values.filter((v) => v !== null);
    expect(refused.length).toBeGreaterThan(0);
  });

  it('reads empty or partial metrics without throwing', () => {
    const m = readMetrics({});
    expect(m.timeline).toEqual([]);
    const empty = buildCharts({ ...s, faults: [] }, m);
    expect(empty).toHaveLength(1);
    expect(pointCount(empty[0])).toBe(0);
    expect(readMetrics({ timeline: [{ t: 3, latency: { create: { p50: 5 } } }] }).timeline[0].latency.create).toEqual({ p50: 5, p99: 0, count: 0 });
  });
});

describe("report.html's charts of a long run", () => {
  const point = (t: number, p99: number) => ({ t, requests: 500, s2xx: 499, s4xx: 1, s5xx: 0, s429: 0, failures: 0, inFlight: 2, latency: { create: { p50: 10, p99, count: 500 } } });
  const summaryOf = (seconds: number) => {
    const s = fixtureSummary();
    const timeline = Array.from({ length: seconds }, (_, t) => point(t, t === 50_003 ? 9000 : 30));
    return { s: { ...s, duration_ms: seconds * 1000 }, m: { ...readMetrics(s.metrics), timeline, durationMs: seconds * 1000 } };
  };
  it('a run up to 4 hours keeps every second', () => {
    const { s, m } = summaryOf(4 * 3600);
    expect(buildCharts(s, m)[0].x).toHaveLength(4 * 3600);
  });
  it('a 24-hour soak is charted in buckets of whole seconds: at most 14,400 points, rates per second kept, a p99 spike kept', () => {
    const { s, m } = summaryOf(24 * 3600);
    const [throughput, latency] = buildCharts(s, m);
    expect(throughput.x.length).toBeLessThanOrEqual(14_400);
    expect(throughput.x.length).toBeGreaterThan(14_000);
    expect(throughput.x[1] - throughput.x[0]).toBe(6);
    expect(throughput.series.find((x) => x.label === 'requests')!.values.every((v) => v === 500)).toBe(true);
    expect(Math.max(...(latency.series.find((x) => x.label === 'p99')!.values as number[]))).toBe(9000);
    expect(throughput.xMax).toBe(24 * 3600);
  });
});
