/**
 * `summary.metrics` is typed loosely in the summary schema (a record), so the
 * renderers read it through here: a RunMetrics with every part defaulted, never
 * throwing on a partial or empty object (an interrupted run may have none).
 */
import type { LatencySummary, RateSample, RunMetrics, TimelinePoint } from '../spec/scenario.ts';

const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function timelinePoint(v: unknown): TimelinePoint {
  const p = obj(v);
  const latency: TimelinePoint['latency'] = {};
  for (const [op, l] of Object.entries(obj(p.latency))) {
    const o = obj(l);
    latency[op] = { p50: num(o.p50), p99: num(o.p99), count: num(o.count) };
  }
  return {
    t: num(p.t),
    requests: num(p.requests),
    s2xx: num(p.s2xx),
    s4xx: num(p.s4xx),
    s5xx: num(p.s5xx),
    s429: num(p.s429),
    failures: num(p.failures),
    inFlight: num(p.inFlight),
    latency,
  };
}

function rateSample(v: unknown): RateSample {
  const s = obj(v);
  return { t: num(s.t), key: String(s.key ?? ''), limit: numOrNull(s.limit), remaining: numOrNull(s.remaining), reset: numOrNull(s.reset), status: num(s.status) };
}

function latencySummary(v: unknown): LatencySummary {
  const l = obj(v);
  return {
    count: num(l.count),
    min: num(l.min),
    mean: num(l.mean),
    p50: num(l.p50),
    p90: num(l.p90),
    p99: num(l.p99),
    p999: num(l.p999),
    max: num(l.max),
    hdr: typeof l.hdr === 'string' ? l.hdr : '',
  };
}

export function readMetrics(raw: unknown): RunMetrics {
  const m = obj(raw);
  const latency: RunMetrics['latency'] = {};
  for (const [op, byClass] of Object.entries(obj(m.latency))) {
    latency[op] = {};
    for (const [cls, l] of Object.entries(obj(byClass))) latency[op][cls] = latencySummary(l);
  }
  const trends: RunMetrics['trends'] = {};
  for (const [name, t] of Object.entries(obj(m.trends))) {
    const { hdr: _hdr, ...rest } = latencySummary(t);
    trends[name] = rest;
  }
  return {
    requests: num(m.requests),
    dropped: num(m.dropped),
    failures: num(m.failures),
    durationMs: num(m.durationMs),
    latency,
    timeline: arr(m.timeline).map(timelinePoint).sort((a, b) => a.t - b.t),
    rate: arr(m.rate).map(rateSample).sort((a, b) => a.t - b.t),
    trends,
  };
}
