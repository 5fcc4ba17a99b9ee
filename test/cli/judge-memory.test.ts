/**
 * The judge's memory (src/cli/live/judge-memory.ts): every judge thread gets its own heap limit
 * (default three quarters of the machine's, `--judge-memory MB`), and a judge that runs out of it
 * is reported, not fatal: the run's metrics and thresholds are kept, every invariant is `error`,
 * the verdict fails (exit 1) and names the fix. Before, a history too long for Node's default heap
 * (about 4 GB: some 8M records) took `paystorm check` down with a V8 abort and no reports, and a
 * soak's live judge fell back to judging the file on the run's own thread, which took the run down.
 */
import { describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticHistory as syntheticRecords, writeSyntheticHistory } from '../../bench/lib/synthetic-history.ts';
import { k6Lines, readSample } from '../../bench/lib/k6-output.ts';
import { judgeHistoryFile, judgeK6Output } from '../../src/cli/judge-run.ts';
import { itWithShared, sharedPath } from '../shared-files.ts';
import { defaultJudgeMemoryMb, HeapWatch, JudgeFileForecast, judgeMemoryMbOf, JudgeOutOfMemory, JUDGE_MEMORY_MIN_MB, machineMemoryMb, nodeHeapLimitMb } from '../../src/cli/live/judge-memory.ts';
import { judgeFileOnThread } from '../../src/cli/live/live-judge.ts';
import { readRunSettings } from '../../src/cli/run-steps/settings.ts';
import { RunJudge } from '../../src/cli/run-steps/judge.ts';
import { RunScope } from '../../src/cli/run-steps/scope.ts';
import { bufferIo } from '../../src/cli/selftest.ts';
import { EXIT, PaystormError } from '../../src/spec/index.ts';
import { INVARIANTS } from '../../src/oracle/index.ts';
import { cli } from '../k6/helpers.ts';
import { readHistory, type HistoryRecord } from '../../src/history/index.ts';
import { clockOffset, shardInputOf } from '../../src/history/merge.ts';
import { serializeShard } from '../../src/history/shard-chunks.ts';
import { MergeJudge } from '../../src/cli/live/live-judge.ts';
import { judgeMerge } from '../../src/cli/merge-judging.ts';

/** A judge limit the 20,000-record synthetic history does not fit in (it needs about 30 MB), though the oracle loads. */
const TOO_SMALL_MB = 16;

async function syntheticHistory(records: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-judge-memory-'));
  const file = join(dir, 'history.bin.gz');
  await writeSyntheticHistory(file, records);
  return file;
}

function refusal(value: unknown): PaystormError {
  try {
    judgeMemoryMbOf(value);
  } catch (e) {
    return e as PaystormError;
  }
  throw new Error(`--judge-memory ${String(value)} was taken`);
}

describe('--judge-memory', () => {
  it('defaults to three quarters of the machine, never below Node\'s own heap limit; takes whole megabytes from 256 to the machine\'s', () => {
    expect(defaultJudgeMemoryMb()).toBe(Math.max(nodeHeapLimitMb(), Math.floor(machineMemoryMb() * 0.75)));
    expect(judgeMemoryMbOf(undefined)).toBe(defaultJudgeMemoryMb());
    expect(judgeMemoryMbOf(2048)).toBe(2048);
    expect(judgeMemoryMbOf('2048')).toBe(2048);
    expect(judgeMemoryMbOf(JUDGE_MEMORY_MIN_MB)).toBe(JUDGE_MEMORY_MIN_MB);
    for (const bad of ['4g', 'x', 100, 0, -1, 1.5, Number.NaN, machineMemoryMb() + 1]) {
      const e = refusal(bad);
      expect(e, String(bad)).toBeInstanceOf(PaystormError);
      expect(e.exitCode).toBe(EXIT.usage);
      expect(e.message).toMatch(/^--judge-memory: the judge's memory in megabytes, a whole number from 256 to \d+/);
    }
  });

  it('a bad value stops check and run before any judging or load (exit 3, the flag named)', async () => {
    const check = await cli(['check', 'test/fixtures/oracle-corpus/bug-idem-no-inflight-lock', '--no-write', '--judge-memory', '12']);
    expect(check.code).toBe(EXIT.usage);
    expect(check.out).toMatch(/--judge-memory: the judge's memory in megabytes, a whole number from 256 to \d+ \(this machine's memory\), e\.g\. \d+; got "12"\./);
    const nan = await cli(['check', 'test/fixtures/oracle-corpus/bug-idem-no-inflight-lock', '--no-write', '--judge-memory', 'lots']);
    expect(nan.code).toBe(EXIT.usage);
    expect(nan.out).toMatch(/--judge-memory: .*; got something that is not a number\./);
    const run = await cli(['run', 'mixed', '--duration', '2s', '--judge-memory', 'lots']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.out).toMatch(/--judge-memory: .*; got something that is not a number\./);
    expect(run.out).not.toMatch(/requests:/);
    // run says it as check does, with the range and an example (not zod's "Too small").
    const small = await cli(['run', 'mixed', '--duration', '2s', '--judge-memory', '12']);
    expect(small.code).toBe(EXIT.usage);
    expect(small.out).toMatch(/--judge-memory: the judge's memory in megabytes, a whole number from 256 to \d+ \(this machine's memory\), e\.g\. \d+; got "12"\./);
  }, 60_000);
});

describe('HeapWatch', () => {
  it('looks at the heap every so many records and says once, with the figures, when it holds 80% of its limit', () => {
    const said: string[] = [];
    let used = 500 * 2 ** 20;
    let looked = 0;
    const watch = new HeapWatch((m) => said.push(m), 900, 1000, () => (looked++, { used, limit: 1000 * 2 ** 20 }));
    watch.judged(999);
    expect(looked).toBe(0);
    watch.judged(1);
    expect(looked).toBe(1);
    expect(said).toEqual([]);
    used = 800 * 2 ** 20;
    watch.judged(500);
    expect(looked).toBe(1);
    watch.judged(1500);
    expect(said).toEqual([
      'the judge has used 80% of its memory (800 of 1,000 MB: --judge-memory 900 and the young generation) after 3,000 records: at this rate it runs out at about 3,750, and the invariants are then not judged (the metrics are). Judge a longer run with more: --judge-memory MB (docs/run.md)',
    ]);
    used = 990 * 2 ** 20;
    watch.judged(5000);
    expect(said).toHaveLength(1);
  });
});

describe('a judge out of memory', () => {
  it('its thread says so (JudgeOutOfMemory, with its limit) instead of taking the process down; with room it judges', async () => {
    const file = await syntheticHistory(20_000);
    const options = { thresholds: [], scenarioThresholds: {} };
    const err = await judgeFileOnThread(file, options, TOO_SMALL_MB, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JudgeOutOfMemory);
    expect((err as JudgeOutOfMemory).limitMb).toBe(TOO_SMALL_MB);
    const judged = await judgeFileOnThread(file, options, 512, () => {});
    expect(judged.verdict).toBe('pass');
  }, 60_000);

  it('check: the metrics and thresholds are kept, every invariant is error, the verdict fails (exit 1) and says how to judge it with more', async () => {
    const file = await syntheticHistory(20_000);
    let stderr = '';
    const thresholds = ['http_req_duration: p(99) < 1'];
    const starved = await judgeHistoryFile(file, { thresholds, memoryMb: TOO_SMALL_MB }, (t) => (stderr += t));
    const judged = await judgeHistoryFile(file, { thresholds }, () => {});
    expect(judged.invariants.some((i) => i.status === 'pass')).toBe(true);

    expect(starved.verdict).toBe('fail');
    expect(starved.exitCode).toBe(EXIT.violation);
    expect(starved.invariants.map((i) => i.id).sort()).toEqual(INVARIANTS.map((i) => i.id).sort());
    for (const i of starved.invariants) {
      expect(i.status, i.id).toBe('error');
      expect(i.reason).toBe(`not judged: the judge ran out of memory (its limit is ${TOO_SMALL_MB} MB)`);
    }
    expect(starved.reason).toBe(`failed: ${stderr.replace(/^paystorm: /, '').trim()}`);
    expect(starved.reason).toMatch(/so no invariant was judged\. .*The history is kept: judge it with more memory: paystorm check \S+history\.bin\.gz --judge-memory 32/);
    // Nothing measured is lost: the same metrics and thresholds as the judged run's.
    expect(starved.metrics).toEqual(judged.metrics);
    expect(starved.thresholds).toEqual(judged.thresholds);
    expect(starved.thresholds).toHaveLength(1);
  }, 60_000);

  it("a run's live judge: the run's summary keeps its metrics, every invariant error, instead of judging the file on the run's thread", async () => {
    const file = await syntheticHistory(20_000);
    const io = bufferIo();
    const settings = await readRunSettings({ out: mkdtempSync(join(tmpdir(), 'paystorm-judge-memory-run-')), scenarios: ['mixed'] }, io);
    // The run's history, already written: the live judge follows it from its first record.
    mkdirSync(settings.runDir, { recursive: true });
    copyFileSync(file, settings.historyPath);
    const scope = new RunScope(io);
    const judge = new RunJudge({ ...settings, judgeMemoryMb: TOO_SMALL_MB }, scope);
    let summary;
    try {
      // Said when it happens, while the load would still be going.
      for (let waited = 0; !/the live judge stopped/.test(io.text()) && waited < 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
      expect(io.text()).toMatch(/the live judge stopped at \d+\.\d s: the judge ran out of memory \(its limit is 16 MB\)\. The load goes on; no violation is found while it runs, and the run's invariants will not be judged \(its metrics and thresholds will\); afterwards, judge it with more memory: paystorm check \S+ --judge-memory 32/);
      // No snapshot judges the file from its start on another thread: it would run out the same way.
      const logged: string[] = [];
      await judge.snapshot('asked', (m) => logged.push(m));
      expect(logged).toEqual(['snapshot (asked) skipped: the judge ran out of memory (its limit is 16 MB), so there is no verdict so far']);
      summary = await judge.final(false);
    } finally {
      await judge.close();
      await scope.final();
    }
    expect(io.text()).not.toMatch(/judging the history file instead/);
    expect(io.text()).toMatch(new RegExp(`the judge ran out of memory \\(its limit is ${TOO_SMALL_MB} MB\\), so no invariant was judged.*paystorm check ${settings.runDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --judge-memory 32`));
    expect(summary.exitCode).toBe(EXIT.violation);
    expect(summary.invariants.every((i) => i.status === 'error')).toBe(true);
    const judged = await judgeHistoryFile(file, {}, () => {});
    expect(summary.metrics).toEqual(judged.metrics);
  }, 60_000);
});

describe('a k6 judge out of memory', () => {
  const SAMPLE = 'samples/k6/mixed-30s-clean.k6.json.gz';
  // k6 output judged as it is read, on a thread that runs out: `check` keeps what k6 measured.
  itWithShared([SAMPLE], 'check of k6 output: the metrics and thresholds kept, every invariant error, the fix named', async () => {
    // 20,000 exchanges of k6 output as the scripts write it, modelled on a real k6 v1.3.0 recording.
    const lines = [...k6Lines(readSample(sharedPath(SAMPLE)), syntheticRecords(40_000), 20_000, 'rebuilt')].map((l) => l.line);
    const file = join(mkdtempSync(join(tmpdir(), 'paystorm-judge-memory-k6-')), 'fleet.k6.json');
    writeFileSync(file, lines.join('\n') + '\n');
    const judging = { thresholds: ['http_req_duration: p(99) < 1'], scenarioThresholds: () => [] };
    let stderr = '';
    const starved = await judgeK6Output(file, judging, { write: false, memoryMb: TOO_SMALL_MB, stderr: (t) => (stderr += t) });
    const judged = await judgeK6Output(file, judging, { write: false, stderr: () => {} });
    expect(starved && judged).toBeTruthy();
    expect(judged!.summary.invariants.some((i) => i.status === 'pass')).toBe(true);
    expect(stderr).toMatch(new RegExp(`the judge ran out of memory \\(its limit is ${TOO_SMALL_MB} MB\\), so no invariant was judged.*--judge-memory 32`));
    const s = starved!.summary;
    expect(s.verdict).toBe('fail');
    expect(s.exitCode).toBe(EXIT.violation);
    expect(s.invariants.map((i) => i.id).sort()).toEqual(INVARIANTS.map((i) => i.id).sort());
    for (const i of s.invariants) expect(i.status, i.id).toBe('error');
    // Nothing k6 measured is lost.
    expect(s.metrics).toEqual(judged!.summary.metrics);
    expect(s.thresholds).toEqual(judged!.summary.thresholds);
    expect(s.thresholds).toHaveLength(1);
  }, 120_000);
});

describe('a merge judge out of memory', () => {
  it('the merged history is written, its metrics kept, every invariant error, the fix named', async () => {
    const file = await syntheticHistory(20_000);
    const records: HistoryRecord[] = [];
    for await (const r of readHistory(file)) records.push(r);
    const shards = [serializeShard(shardInputOf({ source: file, kind: 'paystorm', records }, { copy: false }))];
    const offsets = shards.map((s) => clockOffset(s.source, s.kind, s.run, s.estimate));
    const out = mkdtempSync(join(tmpdir(), 'paystorm-judge-memory-merge-'));
    const history = join(out, 'history.bin.gz');
    const judge = new MergeJudge({ thresholds: [], scenarioThresholds: {} }, TOO_SMALL_MB);
    let summary;
    let stderr = '';
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
    try {
      summary = await judgeMerge(judge, { shards, offsets, mixed: [] }, history, { scenarioThresholds: () => [] });
    } finally {
      process.stderr.write = write;
      await judge.cancel();
    }
    expect(stderr).toMatch(new RegExp(`the judge ran out of memory \\(its limit is ${TOO_SMALL_MB} MB\\), so no invariant was judged.*--judge-memory 32`));
    expect(summary.exitCode).toBe(EXIT.violation);
    expect(summary.invariants.every((i) => i.status === 'error')).toBe(true);
    const judged = await judgeHistoryFile(history, {}, () => {});
    expect(judged.invariants.some((i) => i.status === 'pass')).toBe(true);
    expect(summary.metrics).toEqual(judged.metrics);
  }, 60_000);
});

describe('JudgeFileForecast', () => {
  it('foretells the file\'s records from the first ones and the share of the file they took, and warns once when they would not fit', () => {
    const said: string[] = [];
    let read = 0;
    // 1,000 MB limit: 80% holds about 14.0 million records at 60 B; the scratch files fit (1 TB free).
    const roomy = { dir: '/scratch', free: () => 2 ** 40 };
    const f = new JudgeFileForecast((m) => said.push(m), 1000, 4_000_000_000, () => read, 100_000, roomy);
    read = 10_000_000;
    f.judged(99_999);
    expect(said).toEqual([]);
    f.judged(1); // 100,000 records in 1/400 of the file: about 40 million in all
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^this history holds about 40\.0 million records \(from the first 100,000 and the share of the file they took\); the judge keeps about 60 bytes a record \(docs\/oracle\.md, Memory\): about 2\.2 GB, more than it can use of its 1000 MB limit \(--judge-memory 1000\)\. It would stop at about 14\.0 million and judge no invariant; to judge them, stop now and give it --judge-memory 286\d\.$/);
    f.judged(100_000);
    expect(said).toHaveLength(1);
    const fits: string[] = [];
    const g = new JudgeFileForecast((m) => fits.push(m), 1000, 40_000_000, () => 20_000_000, 100_000, roomy);
    g.judged(100_000); // about 200,000 records: 14 MB
    expect(fits).toEqual([]);
  });

  it('says once, from the same forecast, when the scratch files of the history would not fit in TMPDIR', () => {
    const said: string[] = [];
    // 40 million records at 230 B: about 8.6 GB of scratch files, in a directory with 1 GB free; the memory fits (64 GB limit).
    const f = new JudgeFileForecast((m) => said.push(m), 64_000, 4_000_000_000, () => 10_000_000, 100_000, { dir: '/small', free: () => 2 ** 30 });
    f.judged(100_000);
    f.judged(100_000);
    expect(said).toEqual([
      'this history holds about 40.0 million records, and the judge writes about 230 bytes a record of scratch files (docs/oracle.md, Memory): about 8.6 GB in /small, which has 1.0 GB free. ' +
        'Past about 4.2 million records its invariants would be "error" (the metrics are kept): free some space there, or set TMPDIR to a directory with room.',
    ]);
  });

  it('check of a file too long for its judge says so after the first records, before it runs out', async () => {
    // NDJSON, so the reader's read-ahead (2 MB) is a small share of the file and the forecast near the truth.
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-judge-forecast-'));
    const file = join(dir, 'history.ndjson');
    // 300,000 records at 60 B: about 17 MB, past 80% of the 16 MB limit (about 224,000).
    await writeSyntheticHistory(file, 300_000);
    const warnings: string[] = [];
    const err = await judgeFileOnThread(file, { thresholds: [], scenarioThresholds: {} }, TOO_SMALL_MB, (m) => warnings.push(m), { forecastAfter: 5_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    const forecast = warnings.find((w) => w.startsWith('this history holds about '));
    expect(forecast, warnings.join('\n')).toMatch(/more than it can use of its 16 MB limit \(--judge-memory 16\)\. It would stop at about [\d,]+ and judge no invariant/);
    // It warned early; whether the 32 MB judge then ran out is the heap's business (HeapWatch, JudgeOutOfMemory).
    if (err !== null) expect(err).toBeInstanceOf(JudgeOutOfMemory);
    const roomy: string[] = [];
    await judgeFileOnThread(file, { thresholds: [], scenarioThresholds: {} }, 512, (m) => roomy.push(m), { forecastAfter: 5_000 });
    expect(roomy.filter((w) => w.startsWith('this history holds'))).toEqual([]);
  }, 120_000);
});
