/**
 * Run metrics built from history records alone, so `paystorm check`/`report`
 * rebuild exactly what a live run showed by replaying history.ndjson through
 * the same aggregator.
 *
 * - Latency: one HDR histogram (microseconds) per operation x outcome class,
 *   measured from `tIntended` to `tEnd` (corrected for coordinated omission).
 *   Histograms share one configuration and are encoded with HDR's compressed
 *   base64, so histograms from several machines merge exactly.
 * - Timeline: per second (by `tEnd`): requests, status classes, 429s, failures,
 *   average in-flight requests, per-operation p50/p99.
 * - Trends: settle_time, webhook_lag, settle_after_heal (ms).
 * State per live payment is bounded: dropped once settled (and its webhook seen,
 * when the run has webhooks), and capped overall.
 */
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import { isTerminal, type LatencySummary, type PaymentStatus, type RateSample, type RunMetrics, type TimelinePoint } from '../spec/index.ts';
import { type ExchangeRecord, type FaultRecord, type HistoryRecord, type WebhookRecord } from './schema.ts';

/** Outcome classes of an exchange: the status class, 429 apart, or no response. */
export const OUTCOME_CLASSES = ['2xx', '3xx', '4xx', '429', '5xx', 'failure'] as const;
export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

export function outcomeClass(status: number, failure: string | null): OutcomeClass {
  if (failure !== null || status === 0) return 'failure';
  if (status === 429) return '429';
  if (status < 300) return '2xx';
  if (status < 400) return '3xx';
  if (status < 500) return '4xx';
  return '5xx';
}

/** One configuration for every latency histogram: 1 µs to 1 h, 3 significant digits. Merging needs it shared. */
export const HDR_CONFIG = {
  lowestDiscernibleValue: 1,
  highestTrackableValue: 3_600_000_000,
  numberOfSignificantValueDigits: 3,
  bitBucketSize: 32,
  autoResize: false,
  useWebAssembly: false,
} as const;

export function newLatencyHistogram(): Histogram {
  return hdr.build(HDR_CONFIG);
}

/** Records a duration in ms as integer microseconds, clamped into the histogram's range. */
export function recordMs(h: Histogram, ms: number): void {
  let us = Math.round(ms * 1000);
  if (!(us >= 1)) us = 1;
  else if (us > HDR_CONFIG.highestTrackableValue) us = HDR_CONFIG.highestTrackableValue;
  h.recordValue(us);
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(encoded: string): Histogram {
  return hdr.decodeFromCompressedBase64(encoded, HDR_CONFIG.bitBucketSize, false);
}

/** Merges encoded histograms exactly (counts add bucket by bucket); returns the merged encoding. */
export function mergeHistograms(encoded: readonly string[]): string {
  const total = newLatencyHistogram();
  for (const e of encoded) total.add(decodeHistogram(e));
  return encodeHistogram(total);
}

const ms = (us: number) => us / 1000;

/**
 * A percentile as k6 computes it (its TrendSink.P): the value at rank p·(n−1) of the sorted
 * values, interpolated linearly between the two values around that rank; here each value is its
 * HDR bucket's middle (within the histogram's precision), kept within the recorded min and max.
 * HDR's own getValueAtPercentile takes rank ⌈p·n⌉ and the top of its bucket, so with fewer than
 * a hundred samples p(99) is the maximum, and a latency just under a threshold reads as over it.
 */
export function percentileOf(h: Histogram, p: number): number {
  const n = h.totalCount;
  if (n === 0) return 0;
  const i = (Math.min(Math.max(p, 0), 100) / 100) * (n - 1);
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  const middle = (h as unknown as { medianEquivalentValue(v: number): number }).medianEquivalentValue.bind(h);
  // The (r+1)-th smallest value: HDR's count at percentile q is ⌈q·n⌉, so q = (r + ½)/n lands on it.
  const at = (rank: number) => middle(h.getValueAtPercentile(((rank + 0.5) / n) * 100));
  const a = at(lo);
  const b = hi === lo ? a : at(hi);
  return Math.min(Math.max(a + (b - a) * (i - lo), h.minNonZeroValue), h.maxValue);
}

/** Summary in milliseconds plus the encoded µs histogram. */
export function summarizeHistogram(h: Histogram): LatencySummary {
  const count = h.totalCount;
  return {
    count,
    min: count ? ms(h.minNonZeroValue) : 0,
    mean: count ? ms(h.mean) : 0,
    p50: count ? ms(percentileOf(h, 50)) : 0,
    p90: count ? ms(percentileOf(h, 90)) : 0,
    p99: count ? ms(percentileOf(h, 99)) : 0,
    p999: count ? ms(percentileOf(h, 99.9)) : 0,
    max: count ? ms(h.maxValue) : 0,
    hdr: encodeHistogram(h),
  };
}

export function summarizeEncoded(encoded: string): LatencySummary {
  return summarizeHistogram(decodeHistogram(encoded));
}

export const TREND_NAMES = ['settle_time', 'webhook_lag', 'settle_after_heal'] as const;

export interface MetricsOptions {
  /** Most payments tracked at once for trends; the oldest is forgotten beyond it. */
  maxLivePayments?: number;
  /** Rate samples kept per key (thinned by halving beyond it). */
  rateSamplesPerKey?: number;
  /** Seconds a timeline second stays open for late records before its latency is summarized. */
  graceSeconds?: number;
  /** Called with every trend sample (name, run time ms, value ms): the soak drift's per-window figures (src/oracle/trend.ts). */
  onTrendSample?: (name: string, t: number, ms: number) => void;
}

interface LivePayment {
  created: number;
  terminalAt: number;
  webhookAt: number;
}

interface SecondState {
  point: TimelinePoint;
  busyMs: number;
  /** Open per-operation histograms until the second closes. */
  hists: Map<string, Histogram> | null;
}

interface RateThinning {
  samples: RateSample[];
  stride: number;
  seen: number;
}

interface HealWatch {
  healT: number;
  ids: Set<string>;
}

export class MetricsAggregator {
  private requests = 0;
  private failures = 0;
  private dropped = 0;
  private maxT = 0;
  private endT: number | null = null;
  /** op -> outcome class -> histogram (nested maps: no key string built per record). */
  private readonly latency = new Map<string, Map<string, Histogram>>();
  private readonly seconds = new Map<number, SecondState>();
  private closedBefore = 0;
  private newestSecond = 0;
  private readonly rate = new Map<string, RateThinning>();
  private readonly trends = new Map<string, Histogram>();
  private readonly live = new Map<string, LivePayment>();
  private heals: HealWatch[] = [];
  /** null until a run record says whether the run has a webhook receiver. */
  private webhooksExpected: boolean | null = null;
  private readonly histPool: Histogram[] = [];
  private readonly maxLive: number;
  private readonly ratePerKey: number;
  private readonly grace: number;
  private readonly onTrendSample: MetricsOptions['onTrendSample'];

  constructor(opts: MetricsOptions = {}) {
    this.onTrendSample = opts.onTrendSample;
    this.maxLive = opts.maxLivePayments ?? 100_000;
    this.ratePerKey = opts.rateSamplesPerKey ?? 1_000;
    this.grace = opts.graceSeconds ?? 5;
    for (const t of TREND_NAMES) this.trends.set(t, newLatencyHistogram());
  }

  /** Feeds one history record (any kind). */
  add(record: HistoryRecord): void {
    switch (record.kind) {
      case 'exchange':
        this.addExchange(record);
        break;
      case 'webhook':
        this.addWebhook(record);
        break;
      case 'fault':
        this.addFault(record);
        break;
      case 'run':
        this.webhooksExpected = record.webhooks !== null;
        break;
      case 'end':
        this.endT = record.tEnd;
        // Dropped iterations reach a saved history only through the end record.
        if (record.dropped > this.dropped) this.dropped = record.dropped;
        break;
    }
  }

  /** Open-model iterations that could not start for lack of capacity. */
  addDropped(n: number): void {
    this.dropped += n;
  }

  /** Payments currently tracked for trends (bounded). */
  get livePayments(): number {
    return this.live.size;
  }

  /** Timeline seconds whose histograms are still open (bounded by the grace period). */
  get openSeconds(): number {
    let n = 0;
    for (const s of this.seconds.values()) if (s.hists) n++;
    return n;
  }

  private addExchange(r: ExchangeRecord): void {
    // Cut off by paystorm closing its own client (a cap, an interrupt): not the service's answer,
    // so neither a request of its error rate nor a latency (FT-4 leaves it out for the same reason).
    if (r.failure === 'aborted') return;
    this.requests++;
    if (r.failure !== null) this.failures++;
    if (r.tEnd > this.maxT) this.maxT = r.tEnd;
    const cls = outcomeClass(r.status, r.failure);
    const latencyMs = r.tEnd - r.tIntended;
    let byClass = this.latency.get(r.op);
    if (!byClass) this.latency.set(r.op, (byClass = new Map()));
    let h = byClass.get(cls);
    if (!h) byClass.set(cls, (h = newLatencyHistogram()));
    recordMs(h, latencyMs);

    this.addToTimeline(r, cls, latencyMs);
    if (r.rate !== null || r.status === 429) this.addRateSample(r);
    this.trackPayments(r);
  }

  private second(s: number): SecondState {
    let st = this.seconds.get(s);
    if (!st) {
      st = {
        point: { t: s, requests: 0, s2xx: 0, s4xx: 0, s5xx: 0, s429: 0, failures: 0, inFlight: 0, latency: {} },
        busyMs: 0,
        hists: s >= this.closedBefore ? new Map() : null,
      };
      this.seconds.set(s, st);
    }
    return st;
  }

  private addToTimeline(r: ExchangeRecord, cls: OutcomeClass, latencyMs: number): void {
    const s = Math.max(0, Math.floor(r.tEnd / 1000));
    const st = this.second(s);
    const p = st.point;
    p.requests++;
    if (cls === '2xx') p.s2xx++;
    else if (cls === '4xx') p.s4xx++;
    else if (cls === '429') {
      p.s429++;
      p.s4xx++;
    } else if (cls === '5xx') p.s5xx++;
    else if (cls === 'failure') p.failures++;
    if (st.hists) {
      let h = st.hists.get(r.op);
      if (!h) st.hists.set(r.op, (h = this.histPool.pop() ?? hdr.build({ numberOfSignificantValueDigits: 2, autoResize: true })));
      h.recordValue(Math.max(1, Math.round(latencyMs * 1000)));
    }
    // In-flight: time this exchange was outstanding within each second it spans (average concurrency).
    const a = Math.max(0, r.tStart);
    const b = Math.max(a, r.tEnd);
    for (let sec = Math.floor(a / 1000); sec * 1000 < b; sec++) {
      const overlap = Math.min(b, (sec + 1) * 1000) - Math.max(a, sec * 1000);
      if (overlap > 0) this.second(sec).busyMs += overlap;
    }
    if (s > this.newestSecond) {
      this.newestSecond = s;
      this.closeSecondsBefore(s - this.grace);
    }
  }

  private closeSecondsBefore(limit: number): void {
    while (this.closedBefore < limit) {
      const st = this.seconds.get(this.closedBefore);
      if (st?.hists) {
        this.summarizeSecond(st);
        for (const h of st.hists.values()) {
          h.reset();
          this.histPool.push(h);
        }
        st.hists = null;
      }
      this.closedBefore++;
    }
  }

  private summarizeSecond(st: SecondState): void {
    if (!st.hists) return;
    for (const [op, h] of st.hists) {
      st.point.latency[op] = { p50: ms(percentileOf(h, 50)), p99: ms(percentileOf(h, 99)), count: h.totalCount };
    }
  }

  private addRateSample(r: ExchangeRecord): void {
    let th = this.rate.get(r.key);
    if (!th) this.rate.set(r.key, (th = { samples: [], stride: 1, seen: 0 }));
    if (th.seen++ % th.stride !== 0) return;
    th.samples.push({ t: r.tEnd, key: r.key, limit: r.rate?.limit ?? null, remaining: r.rate?.remaining ?? null, reset: r.rate?.reset ?? null, status: r.status });
    if (th.samples.length >= 2 * this.ratePerKey) {
      th.samples = th.samples.filter((_, i) => i % 2 === 0);
      th.stride *= 2;
    }
  }

  private trackPayments(r: ExchangeRecord): void {
    if (r.status < 200 || r.status >= 300) return;
    // Only a create starts tracking a payment; anything else matters only while some are tracked
    // (so a live record need not build its payment / list just for this).
    if (this.live.size === 0 && r.op !== 'create' && r.op !== 'create_hpp') return;
    const p = r.payment;
    if (p && r.status >= 200 && r.status < 300) {
      let e = this.live.get(p.id);
      if (!e && (r.op === 'create' || r.op === 'create_hpp')) {
        e = { created: r.tEnd, terminalAt: NaN, webhookAt: NaN };
        this.live.set(p.id, e);
        if (this.live.size > this.maxLive) this.forget(this.live.keys().next().value as string);
      }
      if (e) this.observeStatus(p.id, e, p.status, r.tEnd);
    }
    if (r.list && r.status >= 200 && r.status < 300) {
      const { ids, statuses } = r.list;
      for (let i = 0; i < ids.length; i++) {
        const e = this.live.get(ids[i]);
        if (e) this.observeStatus(ids[i], e, statuses[i] as PaymentStatus, r.tEnd);
      }
    }
  }

  private observeStatus(id: string, e: LivePayment, status: PaymentStatus, t: number): void {
    if (!Number.isNaN(e.terminalAt) || !isTerminalStatus(status)) return;
    e.terminalAt = t;
    this.recordTrend('settle_time', t, t - e.created);
    if (!Number.isNaN(e.webhookAt)) this.recordTrend('webhook_lag', t, Math.max(0, e.webhookAt - t));
    if (this.heals.length > 0) {
      for (const w of this.heals) {
        if (w.ids.delete(id) && w.ids.size === 0) this.recordTrend('settle_after_heal', t, Math.max(0, t - w.healT));
      }
      this.heals = this.heals.filter((w) => w.ids.size > 0);
    }
    if (this.webhooksExpected === false || !Number.isNaN(e.webhookAt)) this.live.delete(id);
  }

  private addWebhook(w: WebhookRecord): void {
    const id = w.payment?.id;
    if (!id) return;
    const e = this.live.get(id);
    if (!e || !Number.isNaN(e.webhookAt)) return;
    e.webhookAt = w.tReceived;
    if (!Number.isNaN(e.terminalAt)) {
      this.recordTrend('webhook_lag', w.tReceived, Math.max(0, w.tReceived - e.terminalAt));
      this.live.delete(id);
    }
  }

  private addFault(f: FaultRecord): void {
    const ids = new Set<string>();
    for (const [id, e] of this.live) if (e.created <= f.tEnd && Number.isNaN(e.terminalAt)) ids.add(id);
    if (ids.size === 0) this.recordTrend('settle_after_heal', f.tEnd, 0);
    else this.heals.push({ healT: f.tEnd, ids });
  }

  private recordTrend(name: (typeof TREND_NAMES)[number], t: number, valueMs: number): void {
    recordMs(this.trends.get(name)!, valueMs);
    this.onTrendSample?.(name, t, valueMs);
  }

  private forget(id: string): void {
    this.live.delete(id);
    for (const w of this.heals) w.ids.delete(id);
    this.heals = this.heals.filter((w) => w.ids.size > 0);
  }

  /**
   * What the live page reads at every update (src/report/dashboard/feed.ts): the timeline as it
   * stands and the rate samples, without copying every second's point and without the latency
   * histograms' summaries, which it does not show (at 24 hours of timeline those were most of the
   * 450 ms an update held the run's thread). The points are the aggregator's own: read them only.
   */
  liveView(): Pick<RunMetrics, 'requests' | 'dropped' | 'failures' | 'durationMs' | 'timeline' | 'rate'> {
    const timeline: TimelinePoint[] = [];
    let last = -1;
    for (const s of this.seconds.keys()) if (s > last) last = s;
    for (let s = 0; s <= last; s++) {
      const st = this.seconds.get(s);
      if (!st) {
        timeline.push({ t: s, requests: 0, s2xx: 0, s4xx: 0, s5xx: 0, s429: 0, failures: 0, inFlight: 0, latency: {} });
        continue;
      }
      if (st.hists) this.summarizeSecond(st);
      st.point.inFlight = Math.round((st.busyMs / 1000) * 100) / 100;
      timeline.push(st.point);
    }
    return { requests: this.requests, dropped: this.dropped, failures: this.failures, durationMs: this.endT ?? this.maxT, timeline, rate: this.rateSamples() };
  }

  private rateSamples(): RateSample[] {
    const rate: RateSample[] = [];
    for (const th of this.rate.values()) rate.push(...th.samples);
    rate.sort((a, b) => a.t - b.t);
    return rate;
  }

  snapshot(): RunMetrics {
    const latency: RunMetrics['latency'] = {};
    for (const [op, byClass] of this.latency) {
      latency[op] = {};
      for (const [cls, h] of byClass) latency[op][cls] = summarizeHistogram(h);
    }
    // The live view's points, copied: a snapshot outlives the aggregator's later records.
    const { timeline: points, rate } = this.liveView();
    const timeline = points.map((p) => ({ ...p, latency: { ...p.latency } }));
    const trends: RunMetrics['trends'] = {};
    for (const [name, h] of this.trends) {
      if (h.totalCount === 0) continue;
      // The histogram stays (a few hundred bytes): baselines compare trends by their distributions.
      trends[name] = summarizeHistogram(h);
    }
    return {
      requests: this.requests,
      dropped: this.dropped,
      failures: this.failures,
      durationMs: this.endT ?? this.maxT,
      latency,
      timeline,
      rate,
      trends,
    };
  }
}

function isTerminalStatus(s: PaymentStatus | string): boolean {
  return isTerminal(s as PaymentStatus);
}
