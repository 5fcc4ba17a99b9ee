/**
 * The performance gate (exit 2) as k6 users expect it: percentiles as k6 computes them (rank
 * p·(n−1), interpolated), a user's threshold replacing a scenario's default on the same metric,
 * requests paystorm itself aborted left out of the error rate, and `checks` thresholds judged.
 */
import { describe, expect, it } from 'vitest';
import { HISTORY_VERSION, MetricsAggregator, type ExchangeRecord, type HistoryRecord } from '../../src/history/index.ts';
import { evaluateThresholds } from '../../src/oracle/thresholds.ts';
import { check } from '../../src/oracle/index.ts';
import { endRec, ex, runRec } from './fixtures.ts';

/** k6's TrendSink.P: linear interpolation between the sorted values around rank p·(n−1). */
function k6Percentile(values: number[], p: number): number {
  const v = [...values].sort((a, b) => a - b);
  const i = (p / 100) * (v.length - 1);
  return v[Math.floor(i)] + (v[Math.ceil(i)] - v[Math.floor(i)]) * (i - Math.floor(i));
}

function creates(latencies: number[]) {
  const m = new MetricsAggregator();
  latencies.forEach((l, i) => {
    const tEnd = 1000 + i * 10 + l;
    m.add({ v: HISTORY_VERSION, kind: 'exchange', seq: i + 1, scenario: 's', op: 'create', key: 'k', sent: {}, tIntended: tEnd - l, tStart: tEnd - l, tEnd, wall: 0, status: 201, contentType: 'application/json', rate: null, retryAfter: null, json: true, error: null, payment: null, refund: null, list: null, failure: null } as unknown as ExchangeRecord);
  });
  return m.snapshot();
}

describe('percentiles as k6 computes them', () => {
  const cases: [string, number[], number][] = [
    ['one 30 s time-out among 100', [...Array(99).fill(100), 30_000], 99],
    ['one slow request among 60 (p(99) is not simply the maximum)', [...Array(59).fill(100), 1000], 99],
    ['the median of two', [100, 2000], 50],
    ['a spread of values', Array.from({ length: 37 }, (_, i) => 50 + i * i), 90],
  ];
  for (const [what, lats, p] of cases) {
    it(`${what}: p(${p}) within 0.1% of k6's`, () => {
      const [r] = evaluateThresholds([`http_req_duration{op:create}: p(${p})<1`], creates(lats));
      const want = k6Percentile(lats, p);
      expect(Math.abs(r.value! - want) / want).toBeLessThan(0.001);
    });
  }
  it('a latency just under the limit does not read as over it', () => {
    const [p99, max] = evaluateThresholds(['http_req_duration{op:create}: p(99)<700', 'http_req_duration{op:create}: max<700'], creates(Array(200).fill(699.95)));
    expect(p99.ok).toBe(true);
    expect(max.ok).toBe(true);
  });
});

const MIXED = ['http_req_failed: rate<0.01', 'http_req_duration{op:create}: p(99)<2000'];
function run(o: { fail5xx?: number; aborted?: number; slowCreate?: number } = {}): HistoryRecord[] {
  const out: HistoryRecord[] = [runRec({ scenarios: [{ name: 'mixed', rules: [], thresholds: MIXED }, { name: 'chaos-short', rules: [] }] })];
  for (let i = 0; i < 100; i++) {
    let r: ExchangeRecord = { ...ex({ t: i * 10, status: i < (o.fail5xx ?? 0) ? 503 : 200, op: 'create', dur: i < (o.slowCreate ?? 0) ? 2500 : 20 }), scenario: 'mixed' };
    if (i >= 50 && i < 50 + (o.aborted ?? 0)) r = { ...r, status: 0, failure: 'aborted', json: false, contentType: null };
    out.push(r);
  }
  out.push(endRec({ tEnd: 5000, requests: 100 }));
  return out;
}

describe('which thresholds are in force', () => {
  it("a user's threshold on the same metric, tags, aggregate and comparison replaces the scenario's default", async () => {
    const r = await check(run({ fail5xx: 3, slowCreate: 2 }), { thresholds: ['http_req_failed: rate<0.05', 'http_req_duration{op:create}: p(99)<3000'] });
    expect(r.thresholds.map((t) => t.expr).sort()).toEqual(['http_req_duration{op:create}: p(99)<3000', 'http_req_failed: rate<0.05']);
    expect(r.thresholds.every((t) => t.ok)).toBe(true);
    // Without the user's, the defaults judge mixed's traffic and are breached.
    const d = await check(run({ fail5xx: 3, slowCreate: 2 }));
    expect(d.thresholds.filter((t) => !t.ok).map((t) => t.expr).sort()).toEqual([...MIXED].sort());
  });
  it('requests paystorm itself aborted are not failed requests of the service', async () => {
    const r = await check(run({ aborted: 2 }));
    expect(r.thresholds.find((t) => t.expr === 'http_req_failed: rate<0.01')).toMatchObject({ value: 0, ok: true });
    const withFailures = await check(run({ fail5xx: 2 }));
    expect(withFailures.thresholds.find((t) => t.expr === 'http_req_failed: rate<0.01')).toMatchObject({ value: 0.02, ok: false });
  });
  it('a checks threshold is judged against the invariants', async () => {
    const r = await check(run(), { thresholds: ['checks: rate==1'] });
    const t = r.thresholds.find((x) => x.metric === 'checks')!;
    expect(t.value).not.toBeNull();
    expect(t.ok).toBe(r.judgement.invariants.every((i) => i.violations === 0));
    // Judged on the invariant results: one violation in ten checks is a rate of 0.9, so rate==1 fails.
    const base = { id: 'x', title: 'x', rules: [], status: 'pass' as const, examples: [], reason: null, error: null };
    const metrics = creates([10, 20]);
    const [clean] = evaluateThresholds(['checks: rate==1'], metrics, { invariants: [{ ...base, checked: 10, violations: 0 }] });
    expect(clean).toMatchObject({ value: 1, ok: true });
    const [bad] = evaluateThresholds(['checks: rate==1'], metrics, { invariants: [{ ...base, checked: 10, violations: 0 }, { ...base, status: 'fail', checked: 10, violations: 1 }] });
    expect(bad).toMatchObject({ value: 0.95, ok: false });
  });
});
