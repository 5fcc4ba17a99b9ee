import { describe, expect, it } from 'vitest';
import {
  MetricsAggregator,
  decodeHistogram,
  encodeHistogram,
  mergeHistograms,
  newLatencyHistogram,
  outcomeClass,
  recordMs,
  summarizeEncoded,
} from '../../src/history/metrics.ts';
import { seededRandom } from '../../src/engine/index.ts';
import { type CanonicalPayment, type PaymentStatus } from '../../src/spec/index.ts';
import { HISTORY_VERSION, type ExchangeRecord, type FaultRecord, type RunRecord, type WebhookRecord } from '../../src/history/index.ts';
import { exchangeRecord } from '../history-file.ts';
import { ex as exRec, pay } from '../oracle/fixtures.ts';

const payment = (id: string, status: PaymentStatus): CanonicalPayment => pay({ id, status });

function ex(p: Partial<ExchangeRecord> & { tEnd: number }): ExchangeRecord {
  return exchangeRecord({ tIntended: p.tStart ?? p.tEnd - 1, tStart: p.tEnd - 1, ...p });
}

function hook(id: string, t: number): WebhookRecord {
  return {
    v: HISTORY_VERSION,
    kind: 'webhook',
    seq: 0,
    tReceived: t,
    wall: 0,
    path: '/h',
    signature: 'ok',
    t: 0,
    eventId: `evt_${id}`,
    type: 'payment.succeeded',
    createdAt: 0,
    livemode: false,
    envelopeProblems: [],
    payment: payment(id, 'succeeded'),
    refund: null,
    answered: 200,
    duplicate: false,
  };
}

function runRecord(webhooks: boolean): RunRecord {
  return {
    v: HISTORY_VERSION,
    kind: 'run',
    runId: 'r',
    wall: 0,
    target: { url: 'http://127.0.0.1:1', embedded: false, presentation: 'B' },
    rateLimit: null,
    keys: [],
    scenarios: [],
    seed: 1,
    timeScale: 1,
    settleBoundMs: 1000,
    webhooks: webhooks ? { receiverUrl: 'http://127.0.0.1:2', wired: true, failShare: 0, ackTimeoutMs: 10_000 } : null,
    cardOutcomes: [],
  };
}

describe('outcome classes', () => {
  it('separates 429 from other 4xx and no-response failures from statuses', () => {
    expect([outcomeClass(201, null), outcomeClass(303, null), outcomeClass(404, null), outcomeClass(429, null), outcomeClass(503, null), outcomeClass(0, 'timeout')]).toEqual(['2xx', '3xx', '4xx', '429', '5xx', 'failure']);
  });
});

describe('latency histograms', () => {
  it('measure from tIntended to tEnd in microseconds, per operation x outcome class', () => {
    const m = new MetricsAggregator();
    m.add(ex({ op: 'create', status: 201, tIntended: 0, tStart: 90, tEnd: 100 }));
    m.add(ex({ op: 'create', status: 429, tIntended: 10, tStart: 10, tEnd: 15 }));
    m.add(ex({ op: 'retrieve', status: 0, failure: 'timeout', tIntended: 0, tStart: 0, tEnd: 30_000 }));
    const s = m.snapshot();
    expect(Object.keys(s.latency).sort()).toEqual(['create', 'retrieve']);
    expect(Object.keys(s.latency.create).sort()).toEqual(['2xx', '429']);
    expect(s.latency.create['2xx'].p50).toBeCloseTo(100, 0);
    expect(s.latency.create['429'].max).toBeCloseTo(5, 1);
    expect(s.latency.retrieve.failure.count).toBe(1);
    expect(decodeHistogram(s.latency.create['2xx'].hdr).getValueAtPercentile(50)).toBeGreaterThanOrEqual(99_900);
    expect(s).toMatchObject({ requests: 3, failures: 1, durationMs: 30_000 });
  });

  it('merge exactly: histograms from several machines add up to the histogram of all values', () => {
    const rnd = seededRandom(42);
    const whole = newLatencyHistogram();
    const parts = [newLatencyHistogram(), newLatencyHistogram(), newLatencyHistogram()];
    for (let i = 0; i < 30_000; i++) {
      const v = rnd() < 0.01 ? 1000 + rnd() * 9000 : rnd() * 50; // ms, with a slow tail
      recordMs(whole, v);
      recordMs(parts[i % 3], v);
    }
    const merged = decodeHistogram(mergeHistograms(parts.map(encodeHistogram)));
    expect(merged.totalCount).toBe(whole.totalCount);
    for (const q of [0, 50, 90, 99, 99.9, 99.99, 100]) expect(merged.getValueAtPercentile(q)).toBe(whole.getValueAtPercentile(q));
    // HDR keeps values at bucket resolution: merged equals the whole histogram once both are encoded.
    expect(merged.maxValue).toBe(decodeHistogram(encodeHistogram(whole)).maxValue);
    expect(mergeHistograms(parts.map(encodeHistogram))).toBe(encodeHistogram(whole));
    expect(summarizeEncoded(encodeHistogram(whole)).count).toBe(30_000);
  });

  it('merge exactly across aggregators fed different parts of one history', () => {
    const all = new MetricsAggregator();
    const a = new MetricsAggregator();
    const b = new MetricsAggregator();
    const rnd = seededRandom(7);
    for (let i = 0; i < 5_000; i++) {
      const r = ex({ op: 'list', tIntended: i, tStart: i + rnd() * 3, tEnd: i + 3 + rnd() * 200 });
      all.add(r);
      (i % 2 ? a : b).add(r);
    }
    const merged = mergeHistograms([a.snapshot().latency.list['2xx'].hdr, b.snapshot().latency.list['2xx'].hdr]);
    expect(merged).toBe(all.snapshot().latency.list['2xx'].hdr);
  });
});

describe('timeline', () => {
  it('counts per second by end time, with status classes, 429s, failures and average in-flight', () => {
    const m = new MetricsAggregator();
    m.add(ex({ status: 200, tStart: 100, tEnd: 600 }));
    m.add(ex({ status: 429, tStart: 500, tEnd: 900 }));
    m.add(ex({ status: 503, tStart: 1200, tEnd: 1300 }));
    m.add(ex({ status: 0, failure: 'reset', tStart: 900, tEnd: 2500 }));
    const t = m.snapshot().timeline;
    expect(t.map((p) => p.t)).toEqual([0, 1, 2]);
    expect(t[0]).toMatchObject({ requests: 2, s2xx: 1, s429: 1, s4xx: 1 });
    expect(t[1]).toMatchObject({ requests: 1, s5xx: 1 });
    expect(t[2]).toMatchObject({ requests: 1, failures: 1 });
    // Second 0: 500 + 400 + 100 ms busy = 1.0 average in flight; second 1: 1000 + 100 ms.
    expect(t[0].inFlight).toBeCloseTo(1.0, 5);
    expect(t[1].inFlight).toBeCloseTo(1.1, 5);
    expect(t[0].latency.retrieve.count).toBe(2);
  });

  it('keeps only a bounded number of per-second histograms open on a long run', () => {
    const m = new MetricsAggregator({ graceSeconds: 3 });
    for (let s = 0; s < 600; s++) for (let k = 0; k < 5; k++) m.add(ex({ tStart: s * 1000 + k, tEnd: s * 1000 + k + 20 }));
    expect(m.openSeconds).toBeLessThanOrEqual(4);
    const t = m.snapshot().timeline;
    expect(t.length).toBe(600);
    expect(t[10].latency.retrieve).toMatchObject({ count: 5 });
  });

  it('thins rate samples per key to a bounded count', () => {
    const m = new MetricsAggregator({ rateSamplesPerKey: 100 });
    for (let i = 0; i < 10_000; i++) m.add(ex({ key: i % 2 ? 'a' : 'b', tEnd: i, rate: { limit: 500, remaining: 500 - (i % 500), reset: 1 } }));
    const rate = m.snapshot().rate;
    expect(rate.length).toBeLessThanOrEqual(2 * 200);
    expect(rate.length).toBeGreaterThan(100);
    expect(new Set(rate.map((r) => r.key))).toEqual(new Set(['a', 'b']));
  });
});

describe('trends', () => {
  it('settle_time: first create response to first observed terminal status', () => {
    const m = new MetricsAggregator();
    m.add(runRecord(false));
    m.add(ex({ op: 'create', status: 201, tEnd: 100, payment: payment('pay_1', 'pending') }));
    m.add(ex({ op: 'retrieve', tEnd: 600, payment: payment('pay_1', 'pending') }));
    m.add(ex({ op: 'retrieve', tEnd: 1100, payment: payment('pay_1', 'succeeded') }));
    m.add(ex({ op: 'retrieve', tEnd: 5000, payment: payment('pay_1', 'succeeded') }));
    const st = m.snapshot().trends.settle_time;
    expect(st.count).toBe(1);
    expect(st.p50).toBeCloseTo(1000, -1);
    expect(m.livePayments).toBe(0);
  });

  it('webhook_lag: terminal status first seen by poll to the first delivery', () => {
    const m = new MetricsAggregator();
    m.add(runRecord(true));
    m.add(ex({ op: 'create', status: 201, tEnd: 0, payment: payment('pay_1', 'pending') }));
    m.add(ex({ op: 'list', tEnd: 300, list: { object: 'list', ids: ['pay_1'], hasMore: false, url: '/v1/payments', statuses: ['succeeded'], created: [1], livemodes: [false] } }));
    expect(m.livePayments).toBe(1); // terminal, but its webhook is still awaited
    m.add(hook('pay_1', 550));
    m.add(hook('pay_1', 900)); // a retry: only the first delivery counts
    const s = m.snapshot();
    expect(s.trends.webhook_lag.count).toBe(1);
    expect(s.trends.webhook_lag.p50).toBeCloseTo(250, -1);
    expect(s.trends.settle_time.p50).toBeCloseTo(300, -1);
    expect(m.livePayments).toBe(0);
  });

  it('settle_after_heal: end of a fault window to the last payment pending at heal first seen terminal', () => {
    const m = new MetricsAggregator();
    m.add(runRecord(false));
    m.add(ex({ op: 'create', status: 201, tEnd: 10, payment: payment('pay_1', 'pending') }));
    m.add(ex({ op: 'create', status: 201, tEnd: 20, payment: payment('pay_2', 'pending') }));
    m.add(ex({ op: 'create', status: 201, tEnd: 30, payment: payment('pay_3', 'pending') }));
    m.add(ex({ op: 'retrieve', tEnd: 40, payment: payment('pay_3', 'failed') }));
    const fault: FaultRecord = { v: 1, kind: 'fault', proxy: 'upstream', link: 'upstream', toxic: { name: 't', type: 'timeout', stream: 'downstream', toxicity: 1, attributes: {} }, tStart: 50, tEnd: 1000, wallStart: 0 };
    m.add(fault);
    m.add(ex({ op: 'retrieve', tEnd: 1200, payment: payment('pay_1', 'succeeded') }));
    expect(m.snapshot().trends.settle_after_heal).toBeUndefined();
    m.add(ex({ op: 'retrieve', tEnd: 1700, payment: payment('pay_2', 'succeeded') }));
    const t = m.snapshot().trends.settle_after_heal;
    expect(t.count).toBe(1);
    expect(t.p50).toBeCloseTo(700, -1);
  });
});

describe('bounded state', () => {
  it('forgets settled payments, and caps payments that never settle', () => {
    const settled = new MetricsAggregator();
    settled.add(runRecord(false));
    for (let i = 0; i < 200_000; i++) {
      settled.add(ex({ op: 'create', status: 201, tEnd: i, payment: payment(`pay_${i}`, 'pending') }));
      settled.add(ex({ op: 'retrieve', tEnd: i + 1, payment: payment(`pay_${i}`, 'succeeded') }));
    }
    expect(settled.livePayments).toBe(0);
    expect(settled.snapshot().trends.settle_time.count).toBe(200_000);

    const stuck = new MetricsAggregator({ maxLivePayments: 1_000 });
    stuck.add(runRecord(true));
    for (let i = 0; i < 50_000; i++) stuck.add(ex({ op: 'create', status: 201, tEnd: i, payment: payment(`pay_${i}`, 'pending') }));
    expect(stuck.livePayments).toBe(1_000);
  });

  it('takes dropped iterations from addDropped live and from the end record on replay, without double counting', () => {
    const live = new MetricsAggregator();
    live.addDropped(3);
    live.addDropped(2);
    live.add({ v: 1, kind: 'end', tEnd: 10, wall: 0, complete: true, reason: 'done', requests: 0, dropped: 5 });
    const replay = new MetricsAggregator();
    replay.add({ v: 1, kind: 'end', tEnd: 10, wall: 0, complete: true, reason: 'done', requests: 0, dropped: 5 });
    expect(live.snapshot().dropped).toBe(5);
    expect(replay.snapshot().dropped).toBe(5);
  });
});

describe("the live page's view of the metrics (liveView)", () => {
  it("gives the timeline and rate samples snapshot() gives, seconds still open and gaps included, and the counts", () => {
    const m = new MetricsAggregator();
    let seq = 0;
    const ops = ['create', 'retrieve', 'list'] as const;
    for (let s = 0; s < 400; s++) {
      if (s % 37 === 5) continue; // a second without an answer: a zero point
      for (const op of ops) m.add(exRec({ seq: ++seq, t: s * 1000 + 50, dur: 10 + (s % 13) * 40, op, status: s % 50 === 0 ? 429 : 200 }));
    }
    // A slow request spanning many earlier seconds (in flight across them), and the newest seconds still open.
    m.add(exRec({ seq: ++seq, t: 300_000, dur: 95_000, op: 'create' }));
    const live = m.liveView();
    const snap = m.snapshot();
    expect(live.timeline).toEqual(snap.timeline);
    expect(live.rate).toEqual(snap.rate);
    expect({ requests: live.requests, dropped: live.dropped, failures: live.failures, durationMs: live.durationMs }).toEqual({ requests: snap.requests, dropped: snap.dropped, failures: snap.failures, durationMs: snap.durationMs });
    // And again after more records: the view follows them.
    m.add(exRec({ seq: ++seq, t: 401_000, dur: 5, op: 'list' }));
    expect(m.liveView().timeline).toEqual(m.snapshot().timeline);
  });
});
