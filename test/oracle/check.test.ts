/**
 * The oracle's one entry point, `check(history, options)`: what the CLI's judge used to
 * assemble by hand, from records in memory, in one pass.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT, PaystormError } from '../../src/spec/index.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import { check } from '../../src/oracle/index.ts';
import { judgeHistory } from '../../src/cli/judge-run.ts';
import { endRec, ex, runRec } from './fixtures.ts';

const FAILED = 'http_req_failed: rate<0.01';

function records(): HistoryRecord[] {
  return [
    runRec({ scenarios: [{ name: 'mixed', rules: [], thresholds: [FAILED] }, { name: 'chaos-short', rules: [] }] }),
    ...Array.from({ length: 40 }, (_, i) => ({ ...ex({ t: i * 10, status: 200 }), scenario: 'mixed' })),
    ...Array.from({ length: 20 }, (_, i) => ({ ...ex({ t: 500 + i * 10, status: i % 2 ? 503 : 200 }), scenario: 'chaos-short' })),
    endRec({ tEnd: 1000, requests: 60 }),
  ];
}

describe('check(history) -> verdict', () => {
  it('judges an in-memory history: invariants, scoped thresholds, metrics and verdict in one result', async () => {
    const r = await check(records(), { thresholds: ['http_reqs: count>10'] });
    expect(r.judgement.records).toBe(62);
    expect(r.judgement.run?.runId).toBe('run-test');
    // mixed's default judges mixed's traffic only; the user's threshold the whole run.
    expect(r.thresholds.find((t) => t.expr === FAILED)).toMatchObject({ ok: true, value: 0, scope: ['mixed'] });
    expect(r.thresholds.find((t) => t.expr === 'http_reqs: count>10')).toMatchObject({ ok: true, value: 60 });
    expect(r.summary.exitCode).toBe(r.verdict.exitCode);
    expect(r.summary.verdict).toBe(r.verdict.verdict);
    expect(r.summary.thresholds).toEqual(r.thresholds);
    expect(r.summary.invariants).toEqual(r.judgement.invariants);
  });

  it("counts an open model's dropped iterations once: the end record's count, in the metrics and in a dropped_iterations threshold", async () => {
    const recs = records();
    recs[recs.length - 1] = endRec({ tEnd: 1000, requests: 60, dropped: 7 });
    const r = await check(recs, { thresholds: ['dropped_iterations: count<=7'] });
    expect(r.summary.metrics.dropped).toBe(7);
    // Counted twice (14), this threshold failed a run that met it.
    expect(r.thresholds.find((t) => t.expr === 'dropped_iterations: count<=7')).toMatchObject({ ok: true, value: 7 });
  });

  it('reads a one-shot source once, and agrees with judging the same history from a file', async () => {
    const recs = records();
    async function* once() {
      for (const rec of recs) yield rec;
    }
    const fromStream = await check(once());
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-check-'));
    try {
      const file = join(dir, 'history.ndjson');
      writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
      const fromFile = await judgeHistory(file, { onWarning: () => {} });
      expect(fromStream.summary).toEqual(fromFile);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a violation wins over an interruption: exit 1, naming the invariant (exchanges without rate headers)', async () => {
    const r = await check(records(), { interrupted: true });
    expect(r.verdict.exitCode).toBe(EXIT.violation);
    expect(r.verdict.reason).toMatch(/rate-headers-present/);
    expect(r.judgement.invariants.find((i) => i.id === 'rate-headers-present')?.status).toBe('fail');
  });

  it('refuses a regression threshold without a baseline (exit 3)', async () => {
    const err = await check(records(), { thresholds: ['http_req_duration: p(99) < baseline * 1.2'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as PaystormError).exitCode).toBe(EXIT.usage);
  });
});
