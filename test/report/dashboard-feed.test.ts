/** The live page's state (src/report/dashboard/feed.ts) and how its series stay bounded (bound.ts). */
import { describe, expect, it } from 'vitest';
import { LiveRun } from '../../src/engine/index.ts';
import { HISTORY_VERSION, type ExchangeRecord, type FaultRecord } from '../../src/history/index.ts';
import { DashboardFeed, EXAMPLES_PER_INVARIANT } from '../../src/report/dashboard/feed.ts';
import { boundRateSamples, boundTimeline } from '../../src/report/bound.ts';
import type { RateSample, TimelinePoint } from '../../src/spec/scenario.ts';
import type { Operation } from '../../src/spec/operations.ts';
import { fixtureSummary } from './fixture.ts';

const SECRET = 'svc_test_sk_4eC39HqLyjWDarjtT1zdp7dc';

let seq = 0;
function exchange(tEnd: number, status: number, op: Operation = 'create', rate: ExchangeRecord['rate'] = null): ExchangeRecord {
  return { v: HISTORY_VERSION, kind: 'exchange', seq: seq++, scenario: 'mixed', op, key: 'acme/test/…b605', sent: {}, tIntended: tEnd - 20, tStart: tEnd - 20, tEnd, wall: 0, status, contentType: null, rate, retryAfter: null, json: false, error: null, payment: null, refund: null, list: null, failure: null };
}

function fault(tStart: number, tEnd: number): FaultRecord {
  return { v: HISTORY_VERSION, kind: 'fault', proxy: 'upstream', link: 'upstream', toxic: { name: 'lat', type: 'latency', stream: 'downstream', toxicity: 1, attributes: {} }, tStart, tEnd } as FaultRecord;
}

function fed() {
  let now = 0;
  const clock = { now: () => now };
  const live = new LiveRun(() => {});
  const feed = new DashboardFeed({ clock, runId: 'run-1' });
  live.watch(feed);
  return { live, feed, at: (t: number) => (now = t) };
}

describe('dashboard feed', () => {
  it('starts empty, then shows the plan, the scenario, its phase, counters and the report charts as records arrive', () => {
    const { live, feed, at } = fed();
    expect(feed.state()).toMatchObject({ runId: 'run-1', status: 'starting', plan: null, scenario: null, counters: { requests: 0, violations: 0 }, final: null });
    at(500);
    live.plan(60_000, 'about 1 min: mixed load (1 min)');
    live.scenario('mixed', 0, 2);
    at(1000);
    live.phase('waiting for settles', 4000);
    at(3000);
    expect(feed.state().phase).toEqual({ note: 'waiting for settles', leftMs: 2000 });
    for (let s = 0; s < 5; s++) {
      for (let i = 0; i < 10; i++) live.record(exchange(s * 1000 + 100 + i, i === 0 ? 429 : i === 1 ? 503 : 201, 'create', { limit: 120, remaining: 100 - i, reset: 1 }));
    }
    live.record(fault(2000, 3500));
    live.dropped(3, 'mixed');
    at(5500);
    const st = feed.state();
    expect(st.status).toBe('running');
    expect(st.scenario).toEqual({ name: 'mixed', index: 0, total: 2 });
    expect(st.phase).toBeNull(); // its 4 s are up
    // The plan counts from the first scenario's start (0.5 s): 60.5 s - 5.5 s left.
    expect(st.plan).toEqual({ totalMs: 60_000, line: 'about 1 min: mixed load (1 min)', leftMs: 55_000 });
    // Seconds 0-4 are complete at 5.5 s; the counters count every record.
    expect(st.counters).toMatchObject({ requests: 50, s2xx: 40, s4xx: 5, s429: 5, s5xx: 5, dropped: 3, rate: 10 });
    const throughput = st.charts.find((c) => c.id === 'chart-throughput')!;
    expect(throughput.x).toEqual([0, 1, 2, 3, 4]);
    expect(throughput.series.find((s) => s.label === 'requests')!.values).toEqual([10, 10, 10, 10, 10]);
    // The x axis spans the plan, so the data grows into it; faults shade every chart.
    expect(throughput.xMax).toBe(61);
    expect(throughput.faults).toEqual([{ start: 2, end: 3.5, label: 'latency (upstream)' }]);
    expect(st.charts.map((c) => c.title)).toEqual(['Throughput and status classes per second', 'Latency: create', 'Rate limit: acme/test/…b605']);
  });

  it('leaves out the second under way while the load runs, and the phase once its time is up', () => {
    const { live, feed, at } = fed();
    live.scenario('mixed', 0, 1);
    live.phase('waiting', 1000);
    live.record(exchange(900, 200));
    live.record(exchange(1200, 200));
    at(1500);
    expect(feed.state().charts[0].x).toEqual([0]);
    expect(feed.state().phase).toBeNull();
    live.loadEnded();
    expect(feed.state().status).toBe('judging');
    expect(feed.state().charts[0].x).toEqual([0, 1]);
  });

  it('says while the load runs that the judge yields to it, and not once the load has ended', () => {
    const { live, feed } = fed();
    const told: boolean[] = [];
    feed.onChange((urgent) => told.push(urgent));
    live.scenario('mixed', 0, 1);
    expect(feed.state().judgeHeld).toBe(false);
    live.judging(true);
    expect(feed.state().judgeHeld).toBe(true);
    live.judging(false);
    expect(feed.state().judgeHeld).toBe(false);
    live.judging(true);
    live.loadEnded();
    expect(feed.state().judgeHeld).toBe(false);
    // Each change told at once, none urgent.
    expect(told).toEqual([false, false, false, false, false]);
  });

  it('lists violations as the oracle confirms them, one entry per invariant, redacted, bounded, and tells its listeners at once', () => {
    const { live, feed, at } = fed();
    const told: boolean[] = [];
    feed.onChange((urgent) => told.push(urgent));
    at(2000);
    live.violation({ invariant: 'no-secret-echo', rules: ['SEC-2'], evidence: { message: `401 echoed the key ${SECRET}`, requestIds: ['req_1'] }, t: 1500 });
    expect(told).toEqual([false]);
    expect(feed.state().violations).toEqual([{ invariant: 'no-secret-echo', rules: ['SEC-2'], count: 1, examples: [{ message: '401 echoed the key svc_test_sk_[redacted]', requestIds: ['req_1'], t: 1500 }], atEnd: false }]);
    expect(JSON.stringify(feed.state())).not.toContain(SECRET);
    // One record after another breaks the same rule: counted, the first few kept.
    for (let i = 0; i < 10_000; i++) live.violation({ invariant: 'no-card-data-returned', rules: ['PAY-9'], evidence: { message: `m${i}` }, t: 2000 + i });
    const st = feed.state();
    expect(st.violations.map((v) => [v.invariant, v.count])).toEqual([['no-secret-echo', 1], ['no-card-data-returned', 10_000]]);
    expect(st.violations[1].examples.map((e) => e.message)).toEqual(Array.from({ length: EXAMPLES_PER_INVARIANT }, (_, i) => `m${i}`));
    expect(st.counters.violations).toBe(10_001);
  });

  it('at the verdict, adds the failures only the final verdict found and says the run is done', () => {
    const { live, feed } = fed();
    const summary = fixtureSummary();
    const failing = summary.invariants.filter((i) => i.status === 'fail');
    expect(failing.length).toBeGreaterThan(1);
    // One failing invariant was confirmed live: it is not listed again from the verdict.
    live.violation({ invariant: failing[0].id, rules: failing[0].rules, evidence: { message: 'live one' }, t: 10 });
    const told: boolean[] = [];
    feed.onChange((urgent) => told.push(urgent));
    expect(feed.done).toBe(false);
    live.verdict(summary);
    expect(told).toEqual([true]);
    expect(feed.done).toBe(true);
    const st = feed.state();
    expect(st.status).toBe('done');
    expect(st.final).toMatchObject({ verdict: 'fail', exitCode: summary.exitCode });
    expect(st.violations.find((v) => v.invariant === failing[0].id)).toMatchObject({ count: 1, atEnd: false });
    const atEnd = st.violations.filter((v) => v.atEnd);
    expect(atEnd.map((v) => v.invariant)).toEqual(failing.slice(1).map((i) => i.id));
    expect(atEnd[0].count).toBe(failing[1].examples.length);
    expect(atEnd[0].examples[0].message).toBe(failing[1].examples[0].message);
  });
});

function point(t: number, requests: number, p50: number, p99: number): TimelinePoint {
  return { t, requests, s2xx: requests, s4xx: 0, s5xx: 0, s429: 0, failures: 0, inFlight: 1, latency: { create: { p50, p99, count: requests } } };
}

describe('bounded live series', () => {
  it('a 4-hour timeline becomes at most 600 points, with rates per second kept and p99 spikes not averaged away', () => {
    const hours4 = Array.from({ length: 4 * 3600 }, (_, t) => point(t, 100, 10, t === 7203 ? 5000 : 20));
    const b = boundTimeline(hours4);
    expect(b.length).toBeLessThanOrEqual(600);
    expect(b.length).toBeGreaterThan(500);
    expect(b.every((p) => p.requests === 100 && p.inFlight === 1)).toBe(true);
    expect(Math.max(...b.map((p) => p.latency.create.p99))).toBe(5000);
    expect(b.map((p) => p.latency.create.count).reduce((a, c) => a + c, 0)).toBe(100 * 4 * 3600);
    // Buckets are aligned on whole multiples, so they stay put as the run grows.
    const k = b[1].t - b[0].t;
    expect(b.every((p) => p.t % k === 0)).toBe(true);
    expect(boundTimeline(hours4.slice(0, 7300)).slice(0, 10).map((p) => p.t)).toEqual(Array.from({ length: 10 }, (_, i) => i * Math.ceil(7300 / 600)));
  });

  it('weights p50 by count, and leaves a short timeline as it is', () => {
    const b = boundTimeline([point(0, 1, 10, 10), point(1, 3, 50, 60)], 1);
    expect(b).toEqual([{ t: 0, requests: 2, s2xx: 2, s4xx: 0, s5xx: 0, s429: 0, failures: 0, inFlight: 1, latency: { create: { p50: 40, p99: 60, count: 4 } } }]);
    const short = [point(0, 1, 1, 1)];
    expect(boundTimeline(short)).toEqual(short);
  });

  it('thins rate samples per key, keeping 429s visible', () => {
    const samples: RateSample[] = [];
    for (let i = 0; i < 5000; i++) {
      samples.push({ t: i, key: 'a', limit: 120, remaining: 5, reset: 1, status: i % 1000 === 7 ? 429 : 200 });
      if (i < 10) samples.push({ t: i, key: 'b', limit: 120, remaining: 5, reset: 1, status: 200 });
    }
    const b = boundRateSamples(samples, 100);
    expect(b.filter((s) => s.key === 'a')).toHaveLength(100);
    expect(b.filter((s) => s.key === 'b')).toHaveLength(10);
    expect(b.filter((s) => s.status === 429)).toHaveLength(5);
    expect(b.map((s) => s.t)).toEqual([...b.map((s) => s.t)].sort((x, y) => x - y));
  });
});

describe('boundTimeline, against the plain reading of its rule', () => {
  // The rule as first written (a pass per field and a set of operations per bucket): the one-pass merge must give exactly this.
  const r2 = (v: number) => Math.round(v * 100) / 100;
  function reference(points: TimelinePoint[], max: number): TimelinePoint[] {
    if (points.length <= max) return points;
    const k = Math.ceil((points[points.length - 1].t - points[0].t + 1) / max);
    const buckets = new Map<number, TimelinePoint[]>();
    for (const p of points) {
      const b = Math.floor(p.t / k);
      if (!buckets.has(b)) buckets.set(b, []);
      buckets.get(b)!.push(p);
    }
    return [...buckets.values()].map((sec) => {
      const mean = (pick: (p: TimelinePoint) => number) => r2(sec.reduce((a, p) => a + pick(p), 0) / sec.length);
      const latency: TimelinePoint['latency'] = {};
      for (const op of new Set(sec.flatMap((p) => Object.keys(p.latency)))) {
        let count = 0, p50 = 0, p99 = 0;
        for (const p of sec) {
          const l = p.latency[op];
          if (!l || l.count === 0) continue;
          count += l.count;
          p50 += l.p50 * l.count;
          p99 = Math.max(p99, l.p99);
        }
        if (count > 0) latency[op] = { p50: r2(p50 / count), p99, count };
      }
      return { t: Math.floor(sec[0].t / k) * k, requests: mean((p) => p.requests), s2xx: mean((p) => p.s2xx), s4xx: mean((p) => p.s4xx), s5xx: mean((p) => p.s5xx), s429: mean((p) => p.s429), failures: mean((p) => p.failures), inFlight: mean((p) => p.inFlight), latency };
    });
  }
  it('gives the same points on random timelines (operations appearing late, zero counts, fractions)', () => {
    let x = 7;
    const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 20; round++) {
      const ops = ['create', 'retrieve', 'list', 'refund', 'submit_hpp'];
      const points: TimelinePoint[] = Array.from({ length: 500 + Math.floor(rand() * 3000) }, (_, t) => {
        const latency: TimelinePoint['latency'] = {};
        for (const op of ops) if (rand() < 0.6) latency[op] = { p50: Math.round(rand() * 5000) / 100, p99: Math.round(rand() * 90000) / 100, count: rand() < 0.1 ? 0 : Math.floor(rand() * 50) };
        return { t, requests: Math.floor(rand() * 300), s2xx: Math.floor(rand() * 300), s4xx: Math.floor(rand() * 9), s5xx: Math.floor(rand() * 3), s429: Math.floor(rand() * 5), failures: Math.floor(rand() * 2), inFlight: Math.round(rand() * 1000) / 100, latency };
      });
      const max = 50 + Math.floor(rand() * 600);
      expect(boundTimeline(points, max)).toEqual(reference(points, max));
    }
  });
});
