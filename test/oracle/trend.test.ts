import { describe, expect, it } from 'vitest';
import { HISTORY_VERSION, type ExchangeRecord } from '../../src/history/index.ts';
import { computeDrift, mannKendall, parseDriftThreshold, senSlope, serialCorrelationFactor, WindowCollector } from '../../src/oracle/trend.ts';
import { rng } from '../../src/oracle/distribution.ts';

function ex(op: string, tEnd: number, latencyMs: number, status = 201): ExchangeRecord {
  return {
    v: HISTORY_VERSION, kind: 'exchange', seq: 0, scenario: 's', op, key: 'k1', sent: {},
    tIntended: tEnd - latencyMs, tStart: tEnd - latencyMs, tEnd, wall: 0, status, contentType: 'application/json',
    rate: null, retryAfter: null, json: true, error: null, payment: null, refund: null, list: null, failure: null,
  } as unknown as ExchangeRecord;
}

/** 60 s of creates (20/s) in 5 s windows; latency 20 ms ± 30% plus `growPerMin` ms per minute elapsed. */
function soak(seed: number, growPerMin: number): WindowCollector {
  const r = rng(seed);
  const w = new WindowCollector(5_000);
  for (let t = 10; t < 60_000; t += 50) {
    const lat = 20 * (0.7 + 0.6 * r()) + (growPerMin * t) / 60_000;
    w.add(ex('create', t, lat));
    w.trend('settle_time', t, 100 * (0.8 + 0.4 * r()));
  }
  return w;
}

describe('Mann-Kendall and Sen', () => {
  it('matches hand-computed values', () => {
    // 1 2 3 4 5: every pair rises: S = 10, var = 5·4·15/18.
    const mk = mannKendall([1, 2, 3, 4, 5]);
    expect(mk.s).toBe(10);
    expect(mk.z).toBeCloseTo((10 - 1) / Math.sqrt((5 * 4 * 15) / 18), 6);
    expect(mk.pUp).toBeCloseTo(0.0137, 3);
    // Ties lower the variance; a flat series has no trend.
    expect(mannKendall([3, 3, 3, 3]).pUp).toBeCloseTo(0.5, 6);
    expect(mannKendall([5, 4, 3, 2, 1]).pUp).toBeCloseTo(1 - 0.0137, 3);
    // One outlier does not move Sen's slope.
    expect(senSlope([0, 1, 2, 3, 4], [0, 2, 4, 6, 100])).toBe(2);
  });
});

describe('drift over windows', () => {
  it('finds a slow leak and fails its drift threshold', () => {
    const w = soak(1, 60);
    const d = computeDrift(w.figures(), w.windowMs, ['trend(http_req_duration{op:create}.p50) < 10%/h', 'trend(settle_time.p99) < 50%/h']);
    expect(d.windows).toBe(12);
    const p50 = d.series.find((s) => s.key === 'http_req_duration{op:create}.p50')!;
    expect(p50.significant).toBe(true);
    expect(p50.slopePerHour).toBeGreaterThan(1000); // ~60 ms per minute = 3600 ms/h
    expect(d.thresholds[0].ok).toBe(false);
    expect(d.thresholds[0].note).toMatch(/^drift: /);
    // settle time does not grow: its threshold holds.
    expect(d.thresholds[1].ok).toBe(true);
  });

  it("a series' test and slope are the ones mannKendall and senSlope give for its points (the serial correction takes out that same slope)", () => {
    for (const seed of [1, 5]) {
      const w = soak(seed, seed === 1 ? 60 : 0);
      const d = computeDrift(w.figures(), w.windowMs, []);
      expect(d.series.length).toBeGreaterThan(0);
      for (const s of d.series) {
        const xs = s.points.map((p) => p[0] / 3_600_000);
        const ys = s.points.map((p) => p[1]);
        expect(s.mk).toEqual(mannKendall(ys, xs));
        expect(s.mk.varianceFactor).toBe(serialCorrelationFactor(xs, ys).factor);
        expect(s.slopePerHour).toBe(senSlope(xs, ys));
      }
    }
  });

  it('does not fail a clean soak (noise, no trend)', () => {
    for (const seed of [2, 3, 4]) {
      const w = soak(seed, 0);
      const d = computeDrift(w.figures(), w.windowMs, ['trend(http_req_duration{op:create}.p99) < 10%/h', 'trend(http_req_duration{op:create}.p50) < 10%/h']);
      expect(d.thresholds.every((t) => t.ok)).toBe(true);
    }
  });

  it('does not judge too few windows', () => {
    const w = new WindowCollector(30_000);
    for (let t = 10; t < 60_000; t += 50) w.add(ex('create', t, 10 + t / 100));
    const d = computeDrift(w.figures(), w.windowMs, ['trend(http_req_duration{op:create}.p99) < 10%/h']);
    expect(d.thresholds[0].ok).toBe(true);
    expect(d.thresholds[0].value).toBeNull();
    expect(d.thresholds[0].note).toMatch(/not judged/);
  });

  it('keeps at most 1000 windows: a long run doubles the window, merging counts exactly', () => {
    const w = new WindowCollector(1_000);
    for (let t = 500; t < 2_500_000; t += 1_000) w.add(ex('create', t, 10, t % 4000 === 500 ? 503 : 201));
    expect(w.windowMs).toBe(4_000);
    const figs = w.figures();
    expect(figs.length).toBeLessThanOrEqual(1000);
    expect(figs[0]).toMatchObject({ t: 0, requests: 4, errorRate: 0.25 });
    expect(figs[0].ops.create.count).toBe(4);
  });

  it('counts error and 429 rates per window', () => {
    const w = new WindowCollector(1_000);
    w.add(ex('create', 100, 5, 503));
    w.add(ex('create', 200, 5, 429));
    w.add(ex('create', 300, 5, 201));
    w.add(ex('create', 900, 5, 201));
    const [f] = w.figures();
    expect(f.errorRate).toBe(0.25);
    expect(f.rateLimited).toBe(0.25);
  });
});

describe('drift thresholds', () => {
  it('parses %/h and %/min', () => {
    expect(parseDriftThreshold('trend(http_req_duration{op:create}.p99) < 10%/h')).toMatchObject({ key: 'http_req_duration{op:create}.p99', limit: 10, unit: '%/h' });
    expect(parseDriftThreshold('trend(http_req_failed.rate) <= 5 %/min')).toMatchObject({ key: 'http_req_failed.rate', op: '<=', unit: '%/min' });
    expect(parseDriftThreshold('trend(settle_time.p50) < 50ms/h')).toMatchObject({ key: 'settle_time.p50', limit: 50, unit: 'ms/h' });
    expect(parseDriftThreshold('trend(http_req_failed.rate) < 0.01/h')).toMatchObject({ limit: 0.01, unit: '/h' });
    expect(() => parseDriftThreshold('trend(http_req_failed.rate) < 5ms/h')).toThrow(/drifts in shares, not ms/);
  });

  it('judges absolute slopes: ms per hour, shares per hour', () => {
    const w = soak(1, 60); // +60 ms a minute = +3600 ms an hour
    const d = computeDrift(w.figures(), w.windowMs, ['trend(http_req_duration{op:create}.p50) < 1000ms/h', 'trend(http_req_duration{op:create}.p50) < 10000ms/h', 'trend(http_req_failed.rate) < 0.01/h']);
    expect(d.thresholds[0].ok).toBe(false);
    expect(d.thresholds[0].value!).toBeGreaterThan(2500);
    expect(d.thresholds[0].value!).toBeLessThan(5000);
    expect(d.thresholds[1].ok).toBe(true);
    expect(d.thresholds[2]).toMatchObject({ ok: true, value: 0 });
  });
  it('names what is wrong', () => {
    expect(() => parseDriftThreshold('trend(http_req_duration.p99) < 10')).toThrow(/not a drift threshold/);
    expect(() => parseDriftThreshold('trend(http_reqs.p99) < 10%/h')).toThrow(/trend\(\) takes/);
    expect(() => parseDriftThreshold('trend(http_req_failed.p99) < 10%/h')).toThrow(/has \.rate per window/);
    expect(() => parseDriftThreshold('trend(settle_time{op:create}.p99) < 10%/h')).toThrow(/only http_req_duration takes/);
  });
});
