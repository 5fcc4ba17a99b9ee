import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MetricsAggregator } from '../../src/history/metrics.ts';
import { type RunMetrics, type Summary } from '../../src/spec/index.ts';
import { HISTORY_VERSION, type ExchangeRecord } from '../../src/history/index.ts';
import {
  baselineFromSummary,
  compareWithBaseline,
  defaultRegressions,
  evaluateRegression,
  loadBaseline,
  parseRegression,
  saveBaseline,
  sideOf,
} from '../../src/oracle/baseline.ts';
import { mannWhitneyGreater, rng } from '../../src/oracle/distribution.ts';

function ex(op: string, tEnd: number, latencyMs: number, status = 200): ExchangeRecord {
  return {
    v: HISTORY_VERSION, kind: 'exchange', seq: 0, scenario: 's', op, key: 'k1', sent: {},
    tIntended: tEnd - latencyMs, tStart: tEnd - latencyMs, tEnd, wall: 0, status, contentType: 'application/json',
    rate: null, retryAfter: null, json: true, error: null, payment: null, refund: null, list: null, failure: null,
  } as unknown as ExchangeRecord;
}

/** `seconds` seconds of 40 creates/s with latency base·(1 + noise), plus `slow` per second when asked. */
function run(seed: number, opts: { seconds?: number; base?: number; extra?: number; spikeSecond?: number; errors?: number } = {}): RunMetrics {
  const r = rng(seed);
  const m = new MetricsAggregator({ graceSeconds: 1 });
  const seconds = opts.seconds ?? 20;
  for (let s = 0; s < seconds; s++) {
    for (let i = 0; i < 40; i++) {
      let lat = (opts.base ?? 20) * (0.7 + 0.6 * r()) + (opts.extra ?? 0);
      if (s === opts.spikeSecond) lat *= 20;
      const status = opts.errors && r() < opts.errors ? 503 : 201;
      m.add(ex('create', s * 1000 + i * 25 + 1, lat, status));
    }
  }
  return m.snapshot();
}

function summaryOf(m: RunMetrics): Summary {
  return { version: 1, runId: 'r1', verdict: 'pass', complete: true, exitCode: 0, target: { url: 'http://x', embedded: true, presentation: 'B' }, started_at: '', duration_ms: m.durationMs, scenarios: [{ name: 'mixed', rules: [] }], invariants: [], thresholds: [], faults: [], metrics: m as unknown as Record<string, unknown>, keys: [] };
}

const tmp = mkdtempSync(join(tmpdir(), 'h10-baseline-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('regression thresholds', () => {
  it('parses factor and offset forms', () => {
    const a = parseRegression('http_req_duration{op:create}: p(99) < baseline * 1.2');
    expect([a.t.metric, a.t.tags.op, a.t.percentile, a.op, a.factor, a.offset]).toEqual(['http_req_duration', 'create', 99, '<', 1.2, 0]);
    const b = parseRegression('http_req_failed: rate <= baseline + 0.01');
    expect([b.factor, b.offset, b.op]).toEqual([1, 0.01, '<=']);
    const c = parseRegression('settle_time: p(50) < baseline * 1.5 + 5');
    expect([c.factor, c.offset]).toEqual([1.5, 5]);
  });

  it('names what is wrong', () => {
    expect(() => parseRegression('http_req_duration: p(99) < baseline ** 2')).toThrow(/not a regression threshold/);
    expect(() => parseRegression('nope: p(99) < baseline * 2')).toThrow(/unknown metric "nope"/);
    expect(() => parseRegression('checks: rate > baseline - 0.1')).toThrow(/checks cannot be compared/);
    expect(() => parseRegression('http_req_duration: p(99) < baseline * 0')).toThrow(/factor must be a positive/);
  });
});

describe('Mann-Whitney U', () => {
  it('is sure of a shift and not of the same distribution', () => {
    const r = rng(1);
    const a = Array.from({ length: 30 }, () => r());
    const b = Array.from({ length: 30 }, () => r());
    const shifted = b.map((x) => x + 0.5);
    expect(mannWhitneyGreater(a, shifted)).toBeLessThan(0.001);
    expect(mannWhitneyGreater(a, b)).toBeGreaterThan(0.05);
    // All ties: no evidence either way.
    expect(mannWhitneyGreater([1, 1, 1, 1], [1, 1, 1, 1])).toBeGreaterThan(0.4);
  });
});

describe('comparison with a baseline', () => {
  const base = run(1);
  const b = baselineFromSummary(summaryOf(base));

  it('fails a real slowdown with high confidence', () => {
    const slow = run(2, { extra: 40 });
    const c = compareWithBaseline(b, 'base', slow, defaultRegressions(b));
    const create = c.regressions.find((r) => r.expr.startsWith('http_req_duration{op:create}'))!;
    expect(create.ok).toBe(false);
    expect(create.breached && create.significant).toBe(true);
    expect(create.confidence).toBeGreaterThan(0.99);
  });

  it('passes another clean run', () => {
    const c = compareWithBaseline(b, 'base', run(3), defaultRegressions(b));
    expect(c.regressions.every((r) => r.ok)).toBe(true);
  });

  it('does not fail a p99 blown up by one slow second (not significant across seconds)', () => {
    const spiky = run(4, { spikeSecond: 7 });
    const r = evaluateRegression(parseRegression('http_req_duration{op:create}: p(99) < baseline * 1.2'), { m: base, perSecond: b.perSecond }, sideOf(spiky));
    expect(r.breached).toBe(true);
    expect(r.significant).toBe(false);
    expect(r.ok).toBe(true);
    expect(r.note).toMatch(/not significant/);
  });

  it('judges error rates by their sampling distribution', () => {
    const r = evaluateRegression(parseRegression('http_req_failed: rate < baseline + 0.01'), { m: base, perSecond: b.perSecond }, sideOf(run(5, { errors: 0.1 })));
    expect(r.ok).toBe(false);
    expect(r.confidence).toBeGreaterThan(0.99);
  });

  it('does not judge a handful of samples', () => {
    const r = evaluateRegression(parseRegression('http_req_duration{op:create}: p(99) < baseline * 1.2'), { m: base, perSecond: b.perSecond }, sideOf(run(6, { seconds: 1, extra: 100 })));
    expect(r.ok).toBe(true);
    expect(r.note).toMatch(/too few seconds/);
  });

  it('carries side-by-side rows and CDF points of both runs', () => {
    const c = compareWithBaseline(b, 'base', run(2, { extra: 40 }), []);
    const p50 = c.rows.find((r) => r.label === 'create p50')!;
    expect(p50.ratio!).toBeGreaterThan(2);
    expect(c.plots[0].base.length).toBeGreaterThan(5);
    expect(c.plots[0].next.at(-1)![1]).toBe(1);
  });
});

describe('baseline files', () => {
  it('saves a small file and loads it back (from the directory, the file or a run directory)', () => {
    const s = summaryOf(run(1));
    const saved = saveBaseline(join(tmp, 'b'), s);
    expect(saved.bytes).toBeLessThan(20_000);
    const fromDir = loadBaseline(join(tmp, 'b'));
    expect(fromDir.latency.create['2xx'].count).toBe(800);
    expect(fromDir.perSecond.create.p50.length).toBe(20);
    expect(loadBaseline(saved.path).runId).toBe('r1');
    writeFileSync(join(tmp, 'summary.json'), JSON.stringify(s));
    expect(loadBaseline(join(tmp, 'summary.json')).latency.create['2xx'].count).toBe(800);
    expect(JSON.parse(readFileSync(saved.path, 'utf8')).kind).toBe('paystorm-baseline');
  });

  it('says what is wrong with a bad --baseline', () => {
    expect(() => loadBaseline(join(tmp, 'missing'))).toThrow(/--baseline: nothing at/);
    writeFileSync(join(tmp, 'bad.json'), '{nope');
    expect(() => loadBaseline(join(tmp, 'bad.json'))).toThrow(/is not JSON/);
    writeFileSync(join(tmp, 'other.json'), '{"a":1}');
    expect(() => loadBaseline(join(tmp, 'other.json'))).toThrow(/neither a paystorm baseline nor a summary.json/);
  });
});
