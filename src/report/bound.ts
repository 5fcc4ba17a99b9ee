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
  // One pass (it runs for every bucket of every update of the live page): sums in the seconds' order,
  // operations in the order they first appear.
  let requests = 0, s2xx = 0, s4xx = 0, s5xx = 0, s429 = 0, failures = 0, inFlight = 0;
  const ops = new Map<string, { count: number; p50: number; p99: number }>();
  for (const p of seconds) {
    requests += p.requests;
    s2xx += p.s2xx;
    s4xx += p.s4xx;
    s5xx += p.s5xx;
    s429 += p.s429;
    failures += p.failures;
    inFlight += p.inFlight;
    for (const op in p.latency) {
      let acc = ops.get(op);
      if (!acc) ops.set(op, (acc = { count: 0, p50: 0, p99: 0 }));
      const l = p.latency[op];
      if (!l || l.count === 0) continue;
      acc.count += l.count;
      acc.p50 += l.p50 * l.count;
      acc.p99 = Math.max(acc.p99, l.p99);
    }
  }
  const latency: TimelinePoint['latency'] = {};
  for (const [op, acc] of ops) if (acc.count > 0) latency[op] = { p50: round2(acc.p50 / acc.count), p99: acc.p99, count: acc.count };
  const n = seconds.length;
  return {
    t: Math.floor(seconds[0].t / k) * k,
    requests: round2(requests / n),
    s2xx: round2(s2xx / n),
    s4xx: round2(s4xx / n),
    s5xx: round2(s5xx / n),
    s429: round2(s429 / n),
    failures: round2(failures / n),
    inFlight: round2(inFlight / n),
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
