/**
 * Keeps charted series bounded whatever the run's length: a 4-hour soak has 14,400 timeline
 * seconds, and the live page is sent the series every few seconds; a 24-hour soak's report.html
 * would embed 86,400 points a series. Past `max` points the timeline is merged into buckets of k
 * whole seconds (aligned on multiples of k, so a bucket does not move between updates): counts and
 * in-flight become per-second means, so the y axis still reads "per second"; a bucket's p50 is the
 * count-weighted mean of its seconds' p50s and its p99 their maximum (a spike is never averaged
 * away). Rate-limit samples are thinned per key. The live page keeps MAX_LIVE_POINTS, report.html
 * MAX_REPORT_POINTS (every second of a run up to 4 hours), a snapshot MAX_SNAPSHOT_POINTS; the final
 * summary.json keeps every second.
 */
import type { RateSample, TimelinePoint } from '../spec/scenario.ts';

/** Most timeline points (and rate samples per key) the page is sent. */
export const MAX_LIVE_POINTS = 600;
/** Most timeline points report.html charts: every second of 4 hours (about 5 MB of page); a longer run's in buckets of whole seconds. */
export const MAX_REPORT_POINTS = 14_400;
/**
 * Most timeline points a snapshot's summary.json and report.html carry: every second of an hour.
 * A snapshot is written while the load runs, on its thread: a 24-hour soak's 86,400 seconds took
 * it 7-10 s each time, the load stalled the while. The final reports carry every second.
 */
export const MAX_SNAPSHOT_POINTS = 3_600;

const round2 = (v: number) => Math.round(v * 100) / 100;

export function boundTimeline(points: readonly TimelinePoint[], max = MAX_LIVE_POINTS): TimelinePoint[] {
  if (points.length <= max) return [...points];
  const span = points[points.length - 1].t - points[0].t + 1;
  const k = Math.ceil(span / max);
  const out: TimelinePoint[] = [];
  let bucket: TimelinePoint[] = [];
  const flush = () => {
    if (bucket.length) out.push(mergeSeconds(bucket, k));
    bucket = [];
  };
  for (const p of points) {
    if (bucket.length && Math.floor(p.t / k) !== Math.floor(bucket[0].t / k)) flush();
    bucket.push(p);
  }
  flush();
  return out;
}

/** One point for the k-second bucket these seconds fall in (the metrics' timeline has a point for every second, zeros included). */
function mergeSeconds(seconds: readonly TimelinePoint[], k: number): TimelinePoint {
  const mean = (pick: (p: TimelinePoint) => number) => round2(seconds.reduce((a, p) => a + pick(p), 0) / seconds.length);
  const latency: TimelinePoint['latency'] = {};
  const ops = new Set(seconds.flatMap((p) => Object.keys(p.latency)));
  for (const op of ops) {
    let count = 0;
    let p50 = 0;
    let p99 = 0;
    for (const p of seconds) {
      const l = p.latency[op];
      if (!l || l.count === 0) continue;
      count += l.count;
      p50 += l.p50 * l.count;
      p99 = Math.max(p99, l.p99);
    }
    if (count > 0) latency[op] = { p50: round2(p50 / count), p99, count };
  }
  return {
    t: Math.floor(seconds[0].t / k) * k,
    requests: mean((p) => p.requests),
    s2xx: mean((p) => p.s2xx),
    s4xx: mean((p) => p.s4xx),
    s5xx: mean((p) => p.s5xx),
    s429: mean((p) => p.s429),
    failures: mean((p) => p.failures),
    inFlight: mean((p) => p.inFlight),
    latency,
  };
}

/** At most `max` samples per key, evenly spaced (a 429 sample is kept over its neighbours, so refusals stay visible). */
export function boundRateSamples(samples: readonly RateSample[], max = MAX_LIVE_POINTS): RateSample[] {
  const byKey = new Map<string, RateSample[]>();
  for (const s of samples) {
    const list = byKey.get(s.key);
    if (list) list.push(s);
    else byKey.set(s.key, [s]);
  }
  const out: RateSample[] = [];
  for (const list of byKey.values()) {
    if (list.length <= max) {
      out.push(...list);
      continue;
    }
    const stride = list.length / max;
    for (let i = 0; i < max; i++) {
      const group = list.slice(Math.floor(i * stride), Math.floor((i + 1) * stride));
      out.push(group.find((s) => s.status === 429) ?? group[0]);
    }
  }
  return out.sort((a, b) => a.t - b.t);
}

/** A summary with its metrics' timeline bounded to `max` points (a snapshot's: MAX_SNAPSHOT_POINTS); the same summary when it is within it. */
export function withBoundedTimeline<S extends { metrics: Record<string, unknown> }>(summary: S, max = MAX_SNAPSHOT_POINTS): S {
  const timeline = summary.metrics.timeline;
  if (!Array.isArray(timeline) || timeline.length <= max) return summary;
  return { ...summary, metrics: { ...summary.metrics, timeline: boundTimeline(timeline as TimelinePoint[], max) } };
}
