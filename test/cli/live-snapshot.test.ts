/**
 * A run's snapshot is the live judge's verdict so far (LiveJudge.snapshot): asked of the thread
 * that follows the history, it is what `check` of the records read so far gives, and the judging
 * goes on after it to the same final verdict as without it. Here the thread follows a history of
 * the committed corpus sample with a violation in it (a bug run), written before it is asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiveJudge } from '../../src/cli/live/live-judge.ts';
import { readHistory, type HistoryRecord } from '../../src/history/index.ts';
import { writeRecords } from '../../src/history/records-file.ts';
import { check } from '../../src/oracle/check.ts';
import type { Summary } from '../../src/spec/index.ts';
import { REPO_ROOT } from '../../scripts/corpus/corpus.ts';
import { MAX_SNAPSHOT_POINTS } from '../../src/report/bound.ts';
import { ex, runRec } from '../oracle/fixtures.ts';

let work = '';
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'paystorm-live-snapshot-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function sample(name: string): Promise<HistoryRecord[]> {
  const out: HistoryRecord[] = [];
  for await (const r of readHistory(join(REPO_ROOT, 'test', 'fixtures', 'oracle-corpus', name, 'history.bin.gz'))) out.push(r);
  return out;
}

describe('LiveJudge.snapshot', () => {
  it('gives check of the records read so far, and the final verdict is the one without it', async () => {
    const records = await sample('bug-idem-no-inflight-lock');
    const body = records.filter((r) => r.kind !== 'end');
    const path = join(work, 'history.bin.gz');
    const judge = new LiveJudge(path, { thresholds: [], scenarioThresholds: {} }, {}, { pollMs: 20, yieldToLoad: false });
    try {
      // Nothing to give before the thread has read a record.
      expect(await judge.snapshot()).toBeNull();
      await writeRecords(path, body);
      const exchanges = body.filter((r) => r.kind === 'exchange').length;
      let sofar: Summary | null = null;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (sofar?.metrics.requests ?? 0) < exchanges) {
        sofar = await judge.snapshot();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(sofar).not.toBeNull();
      const expected = (await check(structuredClone(body), { thresholds: [], scenarioThresholds: () => [] })).summary;
      // Not trivially equal: the run double-charged, and the verdict so far says so (and incomplete: no end record yet).
      expect(expected.invariants.some((i) => i.status === 'fail' && i.violations > 0)).toBe(true);
      expect(expected.complete).toBe(false);
      expect(sofar).toEqual(expected);
      // Asked again: the same.
      expect(await judge.snapshot()).toEqual(expected);
      const final = await judge.close(false);
      expect(final).toEqual((await check(structuredClone(body), { thresholds: [], scenarioThresholds: () => [], interrupted: false })).summary);
      // Gone once it gave its verdict: no snapshot, and no wait for one.
      expect(judge.gone).toBe(true);
      expect(await judge.snapshot()).toBeNull();
    } finally {
      await judge.terminate();
    }
  }, 60_000);
});

describe("a long run's snapshot", () => {
  it("carries at most an hour's worth of timeline points, in buckets of whole seconds; the final verdict every second", async () => {
    // Two hours of run time, a request every 10 s: 7,200 timeline seconds.
    const run = runRec();
    const body: HistoryRecord[] = [run, ...Array.from({ length: 720 }, (_, i) => ex({ seq: i + 1, t: i * 10_000, dur: 20, op: 'list' }))];
    const path = join(work, 'two-hours.bin.gz');
    const judge = new LiveJudge(path, { thresholds: [], scenarioThresholds: {} }, {}, { pollMs: 20, yieldToLoad: false });
    try {
      await writeRecords(path, body);
      let sofar: Summary | null = null;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (sofar?.metrics.requests ?? 0) < 720) {
        sofar = await judge.snapshot();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const timeline = sofar!.metrics.timeline as { t: number; requests: number }[];
      expect(timeline.length).toBeLessThanOrEqual(MAX_SNAPSHOT_POINTS);
      expect(timeline[1].t - timeline[0].t).toBe(2);
      // Per second still: 720 requests over about 7,200 seconds (the last bucket may hold one second, its mean that one).
      expect(Math.abs(timeline.reduce((a, p) => a + p.requests, 0) * 2 - 720)).toBeLessThanOrEqual(2);
      const final = await judge.close(false);
      expect((final.metrics.timeline as unknown[]).length).toBeGreaterThan(7_000);
    } finally {
      await judge.terminate();
    }
  }, 60_000);
});
