/**
 * `paystorm check` rebuilds the reason, the rate-limit boundary, the load and the limit's "why"
 * from the history alone: a saved history judged through judgeHistory carries them all.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeHistory } from '../../src/cli/judge-run.ts';
import { renderMarkdown } from '../../src/report/index.ts';
import { summarySchema } from '../../src/spec/index.ts';
import { endRec, ex, rate, runRec } from '../oracle/fixtures.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('summary from a saved history', () => {
  it('carries the reason, the rate-limit boundary, the limit checked and why, and the load with achieved vs target rate', async () => {
    const rl = (group: string, t: number, status: number, remaining: number) =>
      ex({ scenario: 'rate-limit', group, op: 'list', t, dur: 4, status, rate: rate(100, remaining, 3) });
    const records = [
      runRec({ rateLimit: { limit: 3, windowMs: 1_000 }, scenarios: [{ name: 'rate-limit', rules: ['RL-1', 'RL-2'] }] }),
      rl('rl-fresh', 100, 200, 2),
      rl('rl-w2', 120, 200, 1),
      rl('rl-w2', 130, 200, 0),
      rl('rl-edge', 1_060, 429, 0),
      rl('rl-edge', 1_090, 429, 0),
      rl('rl-edge', 1_110, 200, 2),
      rl('rl-burst', 1_800, 200, 1),
      rl('rl-burst', 1_801, 429, 0),
      rl('rl-burst', 2_150, 200, 2),
      rl('rl-burst', 2_151, 200, 1),
      endRec({ tEnd: 3_000, requests: 10, load: [{ scenario: 'rate-limit', executor: 'constant-arrival-rate', targetRate: 10, iterations: 18, dropped: 2, tStart: 0, tEnd: 2_000 }] }),
    ];
    const dir = await mkdtemp(join(tmpdir(), 'paystorm-h8-'));
    dirs.push(dir);
    const file = join(dir, 'history.ndjson');
    await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const s = await judgeHistory(file, { onWarning: () => {} });
    expect(summarySchema.safeParse(s).success).toBe(true);
    expect(s.reason).toMatch(/^(passed|failed): /);
    expect(s.rateBoundary).toMatchObject({ limit: 3, windowMs: 1_000, burst: { before: 1, after: 2, sent: 4 } });
    expect(s.rateBoundary!.edge).toMatchObject({ from: 1_090, to: 1_114 });
    expect(s.load).toEqual([{ scenario: 'rate-limit', executor: 'constant-arrival-rate', targetRate: 10, achievedRate: 9, iterations: 18, dropped: 2, tStart: 0, tEnd: 2_000 }]);
    const checked = s.findings!.find((f) => f.id === 'rate-limit-checked')!;
    expect(checked.text).toMatch(/^checked 3 \/ 1 s: the embedded reference service runs a scaled limit/);
    expect(s.findings!.some((f) => f.id === 'rate-limit-boundary' && f.text.includes('1 + 2 admitted'))).toBe(true);
    const md = renderMarkdown(s);
    expect(md).toContain('target 10.0/s, achieved 9.0/s (90%), 18 iterations, 2 dropped');
    // Merged from the HDR histograms of every operation and outcome: 10 answers of 4 ms each.
    expect(md).toMatch(/- latency \(10 answered\): p50 4\.0 ms, p90 4\.0 ms, p99 4\.0 ms, p99\.9 4\.0 ms, max 4\.0 ms/);
    expect(md).toContain('- statuses: 2xx 7, 4xx 0, 429 3, 5xx 0; errors (no answer) 0; dropped iterations 0');
  });
});
