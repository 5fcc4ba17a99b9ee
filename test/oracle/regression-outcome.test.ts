/**
 * A regression threshold on one outcome's latency (here 5xx) is tested on that outcome's own
 * samples: the per-second figures are the op's over every outcome, where a tenfold slower 5xx
 * among many fast 2xx read as noise.
 */
import { describe, expect, it } from 'vitest';
import { HISTORY_VERSION, MetricsAggregator, type ExchangeRecord } from '../../src/history/index.ts';
import type { RunMetrics, Summary } from '../../src/spec/index.ts';
import { baselineFromSummary, compareWithBaseline } from '../../src/oracle/baseline.ts';
import { seededRandom } from '../../src/spec/random.ts';

function ex(tEnd: number, latencyMs: number, status: number): ExchangeRecord {
  return { v: HISTORY_VERSION, kind: 'exchange', seq: 0, scenario: 's', op: 'create', key: 'k', sent: {}, tIntended: tEnd - latencyMs, tStart: tEnd - latencyMs, tEnd, wall: 0, status, contentType: 'application/json', rate: null, retryAfter: null, json: true, error: null, payment: null, refund: null, list: null, failure: null } as unknown as ExchangeRecord;
}
/** 30 s of 40 creates/s (2xx, about 20 ms) plus 2 creates/s answered 503 after about `errMs`. */
function run(seed: number, errMs: number): RunMetrics {
  const r = seededRandom(seed);
  const m = new MetricsAggregator({ graceSeconds: 1 });
  for (let s = 0; s < 30; s++) {
    for (let i = 0; i < 40; i++) m.add(ex(s * 1000 + i * 25 + 1, 20 * (0.7 + 0.6 * r()), 201));
    for (let i = 0; i < 2; i++) m.add(ex(s * 1000 + 500 + i * 100, errMs * (0.9 + 0.2 * r()), 503));
  }
  return m.snapshot();
}
const summaryOf = (m: RunMetrics) => ({ version: 1, runId: 'r1', verdict: 'pass', complete: true, exitCode: 0, target: { url: 'http://x', embedded: true, presentation: 'B' }, scenarios: [{ name: 'mixed', rules: [] }], invariants: [], thresholds: [], faults: [], metrics: m, keys: [] }) as unknown as Summary;

describe('regression thresholds on one outcome', () => {
  const expr = 'http_req_duration{op:create,outcome:5xx}: p(50) < baseline * 1.5';
  it('5xx latency ten times slower (60 samples each side) is a regression', () => {
    const r = compareWithBaseline(baselineFromSummary(summaryOf(run(1, 100))), 'b', run(2, 1000), [expr]).regressions[0];
    expect(r.breached).toBe(true);
    expect(r.confidence!).toBeGreaterThan(0.95);
    expect(r.ok).toBe(false);
  });
  it('the same 5xx latency is none', () => {
    const r = compareWithBaseline(baselineFromSummary(summaryOf(run(1, 100))), 'b', run(2, 100), [expr]).regressions[0];
    expect(r.ok).toBe(true);
  });
});
