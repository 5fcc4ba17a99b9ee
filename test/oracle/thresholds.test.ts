import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { evaluateThresholds, mergeThresholds, parseThreshold, ThresholdError } from '../../src/oracle/index.ts';
import { EXIT, type LatencySummary, type RunMetrics } from '../../src/spec/index.ts';

/** A latency summary (ms) with its HDR histogram (µs), as the engine writes it. */
function series(valuesMs: number[]): LatencySummary {
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3, bitBucketSize: 32, useWebAssembly: false });
  for (const v of valuesMs) h.recordValue(Math.round(v * 1000));
  const s: LatencySummary = {
    count: h.totalCount,
    min: h.minNonZeroValue / 1000,
    mean: h.mean / 1000,
    p50: h.getValueAtPercentile(50) / 1000,
    p90: h.getValueAtPercentile(90) / 1000,
    p99: h.getValueAtPercentile(99) / 1000,
    p999: h.getValueAtPercentile(99.9) / 1000,
    max: h.maxValue / 1000,
    hdr: hdr.encodeIntoCompressedBase64(h),
  };
  h.destroy();
  return s;
}
const range = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));

function metrics(): RunMetrics {
  // create: 90 fast 2xx (10 ms) + 10 slow 5xx (1000 ms): only the merged p99 sees the slow ones.
  return {
    requests: 200,
    dropped: 3,
    failures: 2,
    durationMs: 10_000,
    latency: {
      create: { '2xx': series(range(90, () => 10)), '5xx': series(range(10, () => 1000)) },
      retrieve: { '2xx': series(range(96, () => 5)), failure: series([5000, 5000]), '429': series([1, 1]) },
    },
    timeline: [],
    rate: [],
    trends: { settle_time: { count: 4, min: 100, mean: 250, p50: 200, p90: 400, p99: 400, p999: 400, max: 400 } },
  };
}

describe('parseThreshold', () => {
  it("reads k6's syntax", () => {
    expect(parseThreshold('http_req_duration{op:create}: p(99)<800')).toMatchObject({ metric: 'http_req_duration', tags: { op: 'create' }, aggregate: 'p(99)', percentile: 99, op: '<', value: 800 });
    expect(parseThreshold('http_req_failed: rate<0.01')).toMatchObject({ metric: 'http_req_failed', aggregate: 'rate', op: '<', value: 0.01 });
    expect(parseThreshold('dropped_iterations: count<1')).toMatchObject({ aggregate: 'count', value: 1 });
    expect(parseThreshold('settle_time: p(99.9)<=5000')).toMatchObject({ percentile: 99.9, op: '<=' });
  });
  it('rejects an unknown metric, naming it and the known ones', () => {
    expect(() => parseThreshold('http_req_latency: p(99)<800')).toThrow(/unknown metric "http_req_latency".*http_req_duration/);
  });
  it('rejects an aggregate the metric kind lacks, naming the allowed ones', () => {
    expect(() => parseThreshold('http_req_failed: p(99)<1')).toThrow(/http_req_failed is a rate; use rate instead of p\(99\)/);
  });
  it('rejects unknown tags and tag values', () => {
    expect(() => parseThreshold('http_req_duration{route:x}: p(99)<1')).toThrow(/has no tag "route" \(it takes op, outcome\)/);
    expect(() => parseThreshold('http_req_duration{op:charge}: p(99)<1')).toThrow(/op "charge" is not one of/);
  });
  it('rejects malformed expressions with an example of the right form', () => {
    const e = (() => {
      try {
        parseThreshold('p99 < 800');
      } catch (x) {
        return x as ThresholdError;
      }
    })();
    expect(e).toBeInstanceOf(ThresholdError);
    expect(e!.message).toMatch(/"p99 < 800".*http_req_duration\{op:create\}: p\(99\)<800/);
    expect(e!.exitCode).toBe(EXIT.usage);
  });
  it("rejects percentiles paystorm's own trends do not keep", () => {
    expect(() => parseThreshold('settle_time: p(95)<1')).toThrow(/p\(50\), p\(90\), p\(99\) and p\(99.9\)/);
  });
});

describe('evaluateThresholds', () => {
  it('merges the outcome classes of an op exactly through their histograms', () => {
    const [p99, p50] = evaluateThresholds(['http_req_duration{op:create}: p(99)<800', 'http_req_duration{op:create}: p(50)<800'], metrics());
    expect(p99.ok).toBe(false);
    expect(p99.value).toBeGreaterThan(990);
    expect(p50.ok).toBe(true);
    expect(p50.value).toBeCloseTo(10, 0);
  });
  it('filters by outcome class', () => {
    const [r] = evaluateThresholds(['http_req_duration{op:create,outcome:2xx}: max<20'], metrics());
    expect(r.ok).toBe(true);
  });
  it('http_req_failed is (5xx + no response) / requests', () => {
    const [all, retrieve] = evaluateThresholds(['http_req_failed: rate<0.05', 'http_req_failed{op:retrieve}: rate<0.05'], metrics());
    expect(all.value).toBeCloseTo(12 / 200);
    expect(all.ok).toBe(false);
    expect(retrieve.value).toBeCloseTo(2 / 100);
    expect(retrieve.ok).toBe(true);
  });
  it('dropped_iterations and rate_limited', () => {
    const [d, rl] = evaluateThresholds(['dropped_iterations: count<1', 'rate_limited: rate<0.05'], metrics());
    expect(d).toMatchObject({ value: 3, ok: false });
    expect(rl.value).toBeCloseTo(2 / 200);
  });
  it("reads paystorm's trends", () => {
    const [a, b] = evaluateThresholds(['settle_time: p(90)<300', 'settle_time: avg<300'], metrics());
    expect(a).toMatchObject({ value: 400, ok: false });
    expect(b).toMatchObject({ value: 250, ok: true });
  });
  it('holds, with value null, when the metric has no samples', () => {
    const [r] = evaluateThresholds(['webhook_lag: p(99)<1000'], metrics());
    expect(r).toMatchObject({ value: null, ok: true });
  });
  it('checks: share of invariant checks that held', () => {
    const inv = [{ id: 'x', title: 'x', rules: ['RL-1'], status: 'fail' as const, violations: 1, examples: [], reason: null, error: null, checked: 10 }];
    const [r] = evaluateThresholds(['checks: rate>0.95'], metrics(), { invariants: inv });
    expect(r).toMatchObject({ value: 0.9, ok: false });
  });
});

describe('mergeThresholds', () => {
  it('lets flags replace the config file, and the config file scenario defaults, on the same metric', () => {
    const merged = mergeThresholds(['http_req_failed: rate<0.1', 'dropped_iterations: count<1'], ['http_req_failed: rate<0.05'], ['http_req_failed: rate<0.01']);
    expect(merged.sort()).toEqual(['dropped_iterations: count<1', 'http_req_failed: rate<0.01']);
  });

  it('keys on metric, tags (in any order), aggregate and comparison; keeps the trimmed expression of the last, in its place', () => {
    const merged = mergeThresholds(
      ['http_req_duration{op:create,outcome:2xx}: p(99)<800', 'http_req_failed: rate<0.1', 'http_req_failed: rate<=0.1'],
      ['  http_req_duration{ outcome:2xx , op:create }:p(99) < 900  ', 'http_req_failed: rate>0.5'],
    );
    expect(merged).toEqual(['http_req_failed: rate<0.1', 'http_req_failed: rate<=0.1', 'http_req_duration{ outcome:2xx , op:create }:p(99) < 900', 'http_req_failed: rate>0.5']);
  });

  it('refuses an expression that is not a threshold', () => {
    expect(() => mergeThresholds(['http_req_failed: rate<0.1'], ['p99 < 800'])).toThrow(ThresholdError);
    expect(() => mergeThresholds(['trend(http_req_failed.rate) < 0.01/h'])).toThrow(ThresholdError);
  });
});
