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
