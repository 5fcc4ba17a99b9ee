/**
 * A long `paystorm check` says how far it got (src/cli/live/judge-progress.ts): a soak's history
 * takes minutes to judge, and a command silent for that long looks hung. Every so often (20 s by
 * default) one stderr line gives the records judged, the share of the file read and about how long
 * the rest takes; a judgement shorter than that prints none.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSyntheticHistory } from '../../bench/lib/synthetic-history.ts';
import { judgeHistoryFile } from '../../src/cli/judge-run.ts';
import { JudgeProgress, judgeProgressLine, k6ReadProgress, type JudgeProgressReport } from '../../src/cli/live/judge-progress.ts';
import { k6SourceOf } from '../../src/history/k6-history.ts';
import { describeWithShared, sharedPath } from '../shared-files.ts';

describe('JudgeProgress', () => {
  it('says nothing before its interval, then what was judged, once an interval', () => {
    let now = 0;
    const said: JudgeProgressReport[] = [];
    let read = 0;
    const p = new JudgeProgress((r) => said.push(r), 1000, () => read, 20_000, () => now);
    read = 100;
    p.judged(500);
    now = 19_999;
    p.judged(500);
    expect(said).toEqual([]);
    now = 20_000;
    read = 400;
    p.judged(1000);
    expect(said).toEqual([{ records: 2000, bytesRead: 400, fileBytes: 1000, elapsedMs: 20_000 }]);
    now = 30_000;
    p.judged(10);
    expect(said).toHaveLength(1);
    // The reader runs a little ahead; never more than the file.
    now = 40_000;
    read = 1200;
    p.judged(10);
    expect(said[1]).toEqual({ records: 2020, bytesRead: 1000, fileBytes: 1000, elapsedMs: 40_000 });
  });

  it('the line gives the records, the share of the file read and about how long the rest takes', () => {
    expect(judgeProgressLine({ records: 3_200_000, bytesRead: 250, fileBytes: 1000, elapsedMs: 60_000 }, 'history.bin.gz')).toBe(
      'judging history.bin.gz: 3,200,000 records in 1 min 0 s, 25% of the file; about 3 min 0 s left to read and judge the rest',
    );
    expect(judgeProgressLine({ records: 10, bytesRead: 1000, fileBytes: 1000, elapsedMs: 3_725_000 }, 'h.ndjson')).toBe('judging h.ndjson: 10 records in 1 h 2 min, 100% of the file; the file is read; the invariants conclude');
    expect(judgeProgressLine({ records: 10, bytesRead: 0, fileBytes: 1000, elapsedMs: 20_000 }, 'h.ndjson')).toBe('judging h.ndjson: 10 records in 20 s');
  });
});

describe('paystorm check of a history file', () => {
  it('prints how far it got while it judges, and judges the same', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-judge-progress-'));
    const file = join(dir, 'history.bin.gz');
    await writeSyntheticHistory(file, 60_000);
    let stderr = '';
    const watched = await judgeHistoryFile(file, { progressEveryMs: 1 }, (t) => (stderr += t));
    const lines = stderr.split('\n').filter((l) => l.startsWith('paystorm: judging history.bin.gz: '));
    expect(lines.length).toBeGreaterThan(1);
    const records = lines.map((l) => Number(/: ([\d,]+) records/.exec(l)![1].replaceAll(',', '')));
    const shares = lines.map((l) => Number(/, (\d+)% of the file/.exec(l)?.[1] ?? 0));
    expect(records).toEqual([...records].sort((a, b) => a - b));
    expect(Math.max(...records)).toBeLessThanOrEqual(60_000);
    expect(shares).toEqual([...shares].sort((a, b) => a - b));
    expect(Math.max(...shares)).toBeGreaterThan(0);
    expect(Math.max(...shares)).toBeLessThanOrEqual(100);
    // The default interval: a judgement this short prints nothing, and the verdict is the same.
    let quiet = '';
    const plain = await judgeHistoryFile(file, {}, (t) => (quiet += t));
    expect(quiet).toBe('');
    expect(watched.verdict).toBe(plain.verdict);
    expect(watched.invariants.map((i) => [i.id, i.status, i.violations])).toEqual(plain.invariants.map((i) => [i.id, i.status, i.violations]));
  }, 120_000);
});

describeWithShared(['samples/k6/mixed-30s-clean.k6.json.gz'], 'paystorm check of k6 output', () => {
  it('says how far the read of the k6 output got, in lines and the share of the file', async () => {
    const path = sharedPath('samples/k6/mixed-30s-clean.k6.json.gz');
    let stderr = '';
    const k6 = await k6SourceOf(path, { write: false, onRead: k6ReadProgress(path, 0, (t) => (stderr += t)) });
    expect(k6).not.toBeNull();
    const lines = stderr.split('\n').filter((l) => l.startsWith('paystorm: judging mixed-30s-clean.k6.json.gz: '));
    expect(lines.length).toBeGreaterThan(1);
    const counts = lines.map((l) => Number(/: ([\d,]+) lines of k6 output/.exec(l)![1].replaceAll(',', '')));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts[counts.length - 1]).toBeGreaterThan(1000);
    const shares = lines.map((l) => Number(/, (\d+)% of the file/.exec(l)?.[1] ?? 0));
    expect(Math.max(...shares)).toBeGreaterThan(0);
    expect(Math.max(...shares)).toBeLessThanOrEqual(100);
  });
});
