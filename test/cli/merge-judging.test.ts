/**
 * `paystorm merge` judges on two threads (src/cli/merge-judging.ts): this thread writes the merged
 * history while a judge thread follows the file and judges it. Its summary must be the one
 * `check` gives over the merged records on one thread (verdict, invariants, violations, evidence,
 * metrics, thresholds), and the history it writes must hold exactly the merged records. Judged
 * here on real k6 recordings (one with a violation, one interrupted) and a small paystorm run,
 * merged as one.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceService, DEFAULT_KEYS } from '../../src/target/index.ts';
import { readHistory, type HistoryRecord } from '../../src/history/index.ts';
import { readK6Shard } from '../../src/history/merge-threads.ts';
import { clockOffset, mergeShardInputs, shardInputOf } from '../../src/history/merge.ts';
import { serializeShard, shardOfChunks, type SerializedShard } from '../../src/history/shard-chunks.ts';
import { compareShards, shardProfileOf } from '../../src/history/shard-compat.ts';
import { check, type CheckOptions } from '../../src/oracle/check.ts';
import { MergeJudge } from '../../src/cli/live/live-judge.ts';
import { judgeMerge } from '../../src/cli/merge-judging.ts';
import { historyRecords } from '../history-file.ts';
import type { Summary } from '../../src/spec/index.ts';
import { describeWithShared, sharedPath } from '../shared-files.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SAMPLES = ['mixed-30s-clean', 'idempotency-idem-no-inflight-lock', 'mixed-sigint-at-12s'].map((n) => `samples/k6/${n}.k6.json.gz`);

let work = '';
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'paystorm-merge-judging-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function paystorm(args: string[]): Promise<number | null> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'paystorm.js'), ...args], { cwd: ROOT, env: { ...process.env, CI: 'true', NO_COLOR: '1' }, stdio: 'ignore' });
    child.on('error', rej);
    child.on('close', res);
  });
}

/** A paystorm run's history as a merge shard, as `paystorm merge` reads one. */
async function paystormShard(dir: string): Promise<SerializedShard> {
  const records: HistoryRecord[] = [];
  for await (const r of readHistory(join(dir, 'history.bin.gz'))) records.push(r);
  return serializeShard(shardInputOf({ source: dir, kind: 'paystorm', records }, { copy: false }));
}

describeWithShared(SAMPLES, 'merge judged on two threads (the real k6 recordings of the shared folder and a paystorm run)', () => {
  it('gives the summary check gives on one thread, and writes the merged records', async () => {
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, rateLimit: 120, windowMs: 3000 });
    const run = join(work, 'ps');
    try {
      const key = DEFAULT_KEYS.find((k) => k.merchant === 'acme' && k.key.startsWith('svc_test_sk_') && k.direct_api)!.key;
      expect([0, 1]).toContain(await paystorm(['run', 'mixed', '--target', svc.url, '--key', `acme:${key}`, '--window-ms', '3000', '--duration', '2s', '--out', run]));
    } finally {
      await svc.close();
    }
    const shards = [...(await Promise.all(SAMPLES.map((f) => readK6Shard(f, sharedPath(f))))).map((s) => s.shard), await paystormShard(join(run, 'latest'))];
    const offsets = shards.map((s) => clockOffset(s.source, s.kind, s.run, s.estimate));
    const { differences } = compareShards(shards.map((s, i) => shardProfileOf(s.source, s.run, s.ends.at(-1), s.lastMs, offsets[i].correctionMs)));
    // One of the user's thresholds breached, one met, beside the scenarios' own.
    const opts: CheckOptions = { thresholds: ['http_req_duration: p(95) < 1', 'http_req_failed: rate < 0.99'], scenarioThresholds: () => [] };

    const history = join(work, 'merged', 'history.bin.gz');
    const judge = new MergeJudge({ thresholds: [...(opts.thresholds ?? [])], scenarioThresholds: {} });
    let twoThreads;
    try {
      twoThreads = await judgeMerge(judge, { shards, offsets, mixed: differences }, history);
    } finally {
      await judge.cancel();
    }
    const mergedRecords = () => mergeShardInputs(shards.map(shardOfChunks), offsets, differences).records();
    const oneThread = (await check(mergedRecords(), opts)).summary;

    // Not trivially equal: the input holds violations with evidence, a breached threshold and every shard's exchanges.
    expect(oneThread.invariants.some((i) => i.status === 'fail' && i.examples.length > 0)).toBe(true);
    expect(oneThread.thresholds.some((t) => !t.ok)).toBe(true);
    expect(oneThread.exitCode).toBe(1);
    expect(twoThreads).toEqual(oneThread);
    expect(JSON.stringify(twoThreads)).toBe(JSON.stringify(oneThread));

    // The records as merged, before any judging (the oracle notes what it learns on them).
    const merged = [...mergedRecords()];
    const written = await historyRecords(history);
    expect(written.length).toBe(merged.length);
    expect(written).toEqual(JSON.parse(JSON.stringify(merged)));
  }, 120_000);

  it('merged again into a folder that holds an older merged history: judges the new one alone', async () => {
    // The judge follows the file by its path: it must not open the old one before the writer has replaced it.
    const shards = (await Promise.all(SAMPLES.map((f) => readK6Shard(f, sharedPath(f))))).map((s) => s.shard);
    const offsets = shards.map((s) => clockOffset(s.source, s.kind, s.run, s.estimate));
    const { differences } = compareShards(shards.map((s, i) => shardProfileOf(s.source, s.run, s.ends.at(-1), s.lastMs, offsets[i].correctionMs)));
    const opts: CheckOptions = { thresholds: [], scenarioThresholds: () => [] };
    const history = join(work, 'again', 'history.bin.gz');
    const judgeOnce = async (pick: number[]): Promise<Summary> => {
      const judge = new MergeJudge({ thresholds: [], scenarioThresholds: {} });
      // Loaded before the merge writes, as `paystorm merge` starts it before reading the shards.
      await judge.ready;
      try {
        return await judgeMerge(judge, { shards: pick.map((i) => shards[i]), offsets: pick.map((i) => offsets[i]), mixed: differences }, history);
      } finally {
        await judge.cancel();
      }
    };
    await judgeOnce([0, 1, 2]);
    const older = await historyRecords(history);
    const second = await judgeOnce([0]);
    const records = () => mergeShardInputs([shardOfChunks(shards[0])], [offsets[0]], differences).records();
    expect(second).toEqual((await check(records(), opts)).summary);
    const written = await historyRecords(history);
    expect(written.length).toBeLessThan(older.length);
    expect(written).toEqual(JSON.parse(JSON.stringify([...records()])));
  }, 120_000);
});
