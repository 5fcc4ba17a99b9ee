/**
 * `paystorm merge RUN...`: judges shards (paystorm runs and k6 runs alike) as one run.
 * Each RUN is a paystorm run directory or history file, or k6's --out json output of a
 * paystorm k6 script (.json or .gz). Every input is read and checked before anything is
 * written (a bad one: exit 3, naming it), and so is that the shards are one test of one
 * service (shard-compat.ts: same target, presentation, key mode and rate limit, overlapping
 * in time; else exit 3 unless --allow-mixed-shards). The merged history and the reports go to --out.
 */
import { join } from 'node:path';
import type { PaystormCommand } from './types.ts';
import { historyFileOf } from '../judge-run.ts';
import { writeReports, renderConsole } from '../../report/index.ts';
import { SCENARIOS } from '../../../scenarios/index.ts';
import { EXIT, PaystormError } from '../../spec/index.ts';
import { HISTORY_FILE, makeDirsSync, type HistoryRecord } from '../../history/index.ts';
import { MergeJudge, scenarioThresholdsOf } from '../live/live-judge.ts';
import { judgeMerge } from '../merge-judging.ts';
import { judgeMemoryMbOf } from '../live/judge-memory.ts';
import { readHistory } from '../../history/reader.ts';
import { k6FileKind, summaryExportError } from '../../history/k6.ts';
import { readK6Shard } from '../../history/merge-threads.ts';
import { serializeShard, shardOfChunks, type SerializedShard } from '../../history/shard-chunks.ts';
import { clockOffset, describeOffsets, mergeShardInputs, shardInputOf } from '../../history/merge.ts';
import { compareShards, mixedShardsRefusal, shardProfileOf, SHARD_SPAN_SLACK_MS } from '../../history/shard-compat.ts';

/** One shard read: its body serialized (shard-chunks.ts), and the warnings its reading gave. */
interface LoadedShard {
  shard: SerializedShard;
  warnings: string[];
}

async function loadShard(source: string): Promise<LoadedShard> {
  let kind: Awaited<ReturnType<typeof k6FileKind>> = null;
  try {
    kind = await k6FileKind(source);
  } catch {
    kind = null; // not a file: historyFileOf says what is wrong
  }
  if (kind === 'k6-summary') throw summaryExportError(source);
  if (kind === 'k6-json') return readK6Shard(source, source);
  const path = historyFileOf(source);
  const warnings: string[] = [];
  const records: HistoryRecord[] = [];
  for await (const r of readHistory(path, { onWarning: (m) => warnings.push(m) })) records.push(r);
  if (!records.some((r) => r.kind === 'run')) throw new PaystormError(`${path}: the history has no run record, so its shard cannot be placed in time.`, EXIT.usage, 'history');
  return { shard: serializeShard(shardInputOf({ source, kind: 'paystorm', records }, { copy: false })), warnings };
}

/** Shards read two at a time (k6 shards each on a worker thread); their warnings in the shards' order, up to the first refused. */
async function loadShards(sources: readonly string[], warn: (m: string) => void): Promise<SerializedShard[]> {
  const results: Promise<LoadedShard>[] = [];
  let next = 0;
  const started: (() => void)[] = [];
  const lane = async (): Promise<void> => {
    while (next < sources.length) {
      const i = next++;
      results[i] = loadShard(sources[i]);
      started[i]?.();
      await results[i].catch(() => undefined);
    }
  };
  const lanes = [lane(), lane()];
  const shards: SerializedShard[] = [];
  for (let i = 0; i < sources.length; i++) {
    if (results[i] === undefined) await new Promise<void>((resolve) => (started[i] = resolve));
    try {
      const loaded = await results[i];
      for (const w of loaded.warnings) warn(w);
      shards.push(loaded.shard);
    } catch (e) {
      for (const w of (e as { warnings?: string[] }).warnings ?? []) warn(w);
      // No shard after a refused one is started; those being read are let finish.
      next = sources.length;
      await Promise.all(lanes);
      throw e;
    }
  }
  return shards;
}

export const mergeCommand: PaystormCommand = {
  command: 'merge <runs..>',
  describe: 'Judge several shards (paystorm runs and k6 --out json files) as one run: histories interleaved by time, clock offsets estimated, one verdict',
  builder: (y) =>
    y
      .positional('runs', { type: 'string', array: true, describe: "reports/<run-id>, a history file (history.bin.gz, .ndjson), or k6's --out json output of a paystorm k6 script (.json or .gz)" })
      .option('out', { type: 'string', describe: 'Folder for the merged history (history.bin.gz) and the reports (default reports/merge-<time>)' })
      .option('threshold', { type: 'string', array: true, describe: 'Threshold in k6 syntax, repeatable' })
      .option('judge-memory', { type: 'number', describe: "The judge's memory limit in MB (default three quarters of the machine's)" })
      .option('allow-mixed-shards', {
        type: 'boolean',
        default: false,
        describe: `Merge shards that are not one test of one service (another target, presentation A vs B, test vs live keys, another X-RateLimit-Limit, or more than ${SHARD_SPAN_SLACK_MS / 1000} s apart in time), which is refused (exit 3) without it; the report warns what differed`,
      })
      .example('$0 merge shard-0.k6.json.gz shard-1.k6.json.gz reports/latest --out reports/merged', 'Two k6 shards and one paystorm run, judged as one'),
  handler: async (args) => {
    const warn = (m: string) => process.stderr.write(`paystorm: ${m}\n`);
    const sources: string[] = (args.runs ?? []).map(String);
    if (sources.length === 0) throw new PaystormError('merge needs at least one RUN: a paystorm run directory, a history file or a k6 --out json file.', EXIT.usage);
    // Started first: the judge thread loads the oracle while the shards are read.
    const memoryMb = judgeMemoryMbOf(args.judgeMemory);
    const judging = { thresholds: (args.threshold ?? []).map(String), scenarioThresholds: scenarioThresholdsOf(SCENARIOS) };
    const judge = new MergeJudge(judging, memoryMb);
    try {
      const shards = await loadShards(sources, warn);
      const offsets = shards.map((s) => clockOffset(s.source, s.kind, s.run, s.estimate));
      const profiles = shards.map((s, i) => shardProfileOf(s.source, s.run, s.ends.at(-1), s.lastMs, offsets[i].correctionMs));
      const { differences, warnings } = compareShards(profiles);
      for (const w of warnings) warn(w);
      if (differences.length && !args.allowMixedShards) throw new PaystormError(mixedShardsRefusal(profiles, differences), EXIT.usage, '--allow-mixed-shards');
      for (const d of differences) warn(`merged anyway (--allow-mixed-shards): ${d.text}`);
      const merged = mergeShardInputs(shards.map(shardOfChunks), offsets, differences);
      const dir = args.out ? String(args.out) : join('reports', merged.run.runId);
      try {
        makeDirsSync(dir);
      } catch (e) {
        throw new PaystormError(`--out ${dir} cannot be created (${(e as Error).message}). Pass a writable folder.`, EXIT.usage, 'out');
      }
      const history = join(dir, HISTORY_FILE);
      const summary = await judgeMerge(judge, { shards, offsets, mixed: differences }, history, { thresholds: judging.thresholds, scenarioThresholds: (n) => judging.scenarioThresholds[n] ?? [] });
      process.stdout.write(`paystorm merge: ${shards.length} shard${shards.length === 1 ? '' : 's'} -> ${history}\n`);
      for (const line of describeOffsets(merged.offsets)) process.stdout.write(`  ${line}\n`);
      await writeReports(dir, summary, { latestDir: dir });
      process.stdout.write(renderConsole(summary, { color: !!process.stdout.isTTY }) + '\n');
      return summary.exitCode;
    } finally {
      await judge.cancel();
    }
  },
};
