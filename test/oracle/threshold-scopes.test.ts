/**
 * A scenario's default thresholds judge that scenario's own traffic: the chaos phase's injected
 * 5xx must not breach mixed's `http_req_failed: rate<0.01` (a false fail on a good service),
 * while the same expression given by the user judges the whole run, as in k6.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { judgeHistory } from '../../src/cli/judge-run.ts';
import { check } from '../../src/oracle/index.ts';
import { thresholdLabel } from '../../src/report/verdict.ts';
import { endRec, ex, runRec } from './fixtures.ts';

const FAILED = 'http_req_failed: rate<0.01';

function history(): string {
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-scopes-'));
  const recs = [
    runRec({ scenarios: [{ name: 'mixed', rules: [], thresholds: [FAILED] }, { name: 'lists', rules: [], thresholds: [FAILED] }, { name: 'chaos-short', rules: [] }] }),
    ...Array.from({ length: 50 }, (_, i) => ({ ...ex({ t: i * 10, status: 200 }), scenario: 'mixed' })),
    ...Array.from({ length: 50 }, (_, i) => ({ ...ex({ t: 600 + i * 10, status: 200 }), scenario: 'lists' })),
    // The chaos phase: a fifth of its requests answered 503 while the processor is down.
    ...Array.from({ length: 50 }, (_, i) => ({ ...ex({ t: 1200 + i * 10, status: i % 5 === 0 ? 503 : 200 }), scenario: 'chaos-short' })),
    endRec({ tEnd: 2000 }),
  ];
  const file = join(dir, 'history.ndjson');
  writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

describe('threshold scopes', () => {
  it("judges a scenario's default threshold over the scenarios that declare it, not the chaos phase", async () => {
    const s = await judgeHistory(history(), { onWarning: () => {} });
    const t = s.thresholds.find((x) => x.expr === FAILED)!;
    expect(t.ok).toBe(true);
    expect(t.value).toBe(0);
    expect(t.scope).toEqual(['lists', 'mixed']);
    expect(thresholdLabel(t, s.scenarios)).toBe(`${FAILED} (all but chaos-short traffic)`);
  });

  it('judges the same expression given by the user over the whole run', async () => {
    const s = await judgeHistory(history(), { thresholds: [FAILED], onWarning: () => {} });
    const rows = s.thresholds.filter((x) => x.expr === FAILED);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.scope).toBeUndefined();
    expect(rows[0]!.ok).toBe(false);
    expect(rows[0]!.value).toBeCloseTo(10 / 150, 5);
    expect(s.verdict).toBe('fail');
  });
});

describe("a user's threshold replaces the default one on the same metric, tags, aggregate and comparison", () => {
  it('over a scoped default: the default is not judged, the user\'s limit judges the whole run', async () => {
    const s = await judgeHistory(history(), { thresholds: ['http_req_failed:rate < 0.1'], onWarning: () => {} });
    expect(s.thresholds.filter((x) => x.expr === FAILED)).toHaveLength(0);
    const rows = s.thresholds.filter((x) => x.metric === 'http_req_failed');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ expr: 'http_req_failed:rate < 0.1', ok: true });
    expect(rows[0]!.scope).toBeUndefined();
    expect(rows[0]!.value).toBeCloseTo(10 / 150, 5);
  });

  it('over a default every scenario declares (judged over the whole run): only the user\'s, and another comparison is another threshold', async () => {
    const defaults = [FAILED, 'dropped_iterations: count<1', 'http_reqs: count>1'];
    const recs = [
      runRec({ scenarios: [{ name: 'mixed', rules: [], thresholds: defaults }, { name: 'lists', rules: [], thresholds: defaults }] }),
      ...Array.from({ length: 10 }, (_, i) => ({ ...ex({ t: i * 10, status: i % 5 ? 200 : 503 }), scenario: i % 2 ? 'mixed' : 'lists' })),
      endRec({ tEnd: 1000 }),
    ];
    const r = await check(recs, { thresholds: ['http_req_failed: rate<0.5', 'dropped_iterations: count<5', 'http_reqs: count>=1'] });
    const exprs = r.thresholds.map((t) => t.expr).sort();
    expect(exprs).toEqual(['dropped_iterations: count<5', 'http_req_failed: rate<0.5', 'http_reqs: count>1', 'http_reqs: count>=1']);
    expect(r.thresholds.every((t) => t.scope === undefined)).toBe(true);
    expect(r.thresholds.find((t) => t.expr === 'http_req_failed: rate<0.5')).toMatchObject({ ok: true, value: 0.2 });
  });

  it('keeps a scoped default when the user\'s threshold is on other tags', async () => {
    const s = await judgeHistory(history(), { thresholds: ['http_req_failed{op:create}: rate<0.1'], onWarning: () => {} });
    expect(s.thresholds.find((x) => x.expr === FAILED)).toMatchObject({ ok: true, scope: ['lists', 'mixed'] });
    expect(s.thresholds.find((x) => x.expr === 'http_req_failed{op:create}: rate<0.1')!.scope).toBeUndefined();
  });
});
