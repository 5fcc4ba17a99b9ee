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
import { historyFileOf, judgeRecords } from '../judge-run.ts';
import { writeReports, renderConsole } from '../../report/index.ts';
import { scenarioByName } from '../../../scenarios/index.ts';
import { EXIT, PaystormError } from '../../spec/index.ts';
import { HISTORY_FILE, HistoryWriter, makeDirsSync, type HistoryRecord } from '../../history/index.ts';
import { readHistory } from '../../history/reader.ts';
import { convertK6, k6FileKind, summaryExportError } from '../../history/k6.ts';
import { describeOffsets, mergeShards, shardOffsets, type Shard } from '../../history/merge.ts';
import { compareShards, mixedShardsRefusal, shardProfile, SHARD_SPAN_SLACK_MS } from '../../history/shard-compat.ts';

async function loadShard(source: string, warn: (m: string) => void): Promise<Shard> {
  let kind: Awaited<ReturnType<typeof k6FileKind>> = null;
  try {
    kind = await k6FileKind(source);
  } catch {
    kind = null; // not a file: historyFileOf says what is wrong
  }
  if (kind === 'k6-summary') throw summaryExportError(source);
  if (kind === 'k6-json') return { source, kind: 'k6', records: (await convertK6(source, { onWarning: warn })).records };
  const path = historyFileOf(source);
  const records: HistoryRecord[] = [];
  for await (const r of readHistory(path, { onWarning: warn })) records.push(r);
  if (!records.some((r) => r.kind === 'run')) throw new PaystormError(`${path}: the history has no run record, so its shard cannot be placed in time.`, EXIT.usage, 'history');
  return { source, kind: 'paystorm', records };
}

export const mergeCommand: PaystormCommand = {
  command: 'merge <runs..>',
  describe: 'Judge several shards (paystorm runs and k6 --out json files) as one run: histories interleaved by time, clock offsets estimated, one verdict',
  builder: (y) =>
    y
      .positional('runs', { type: 'string', array: true, describe: "reports/<run-id>, a history file (history.bin.gz, .ndjson), or k6's --out json output of a paystorm k6 script (.json or .gz)" })
      .option('out', { type: 'string', describe: 'Folder for the merged history (history.bin.gz) and the reports (default reports/merge-<time>)' })
      .option('threshold', { type: 'string', array: true, describe: 'Threshold in k6 syntax, repeatable' })
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
    const shards: Shard[] = [];
    for (const s of sources) shards.push(await loadShard(s, warn));
    const offsets = shardOffsets(shards);
    const profiles = shards.map((s, i) => shardProfile(s.source, s.records, offsets[i].correctionMs));
    const { differences, warnings } = compareShards(profiles);
    for (const w of warnings) warn(w);
    if (differences.length && !args.allowMixedShards) throw new PaystormError(mixedShardsRefusal(profiles, differences), EXIT.usage, '--allow-mixed-shards');
    for (const d of differences) warn(`merged anyway (--allow-mixed-shards): ${d.text}`);
    const merged = mergeShards(shards, { offsets, mixed: differences });
    const run = merged.records[0];
    const dir = args.out ? String(args.out) : join('reports', run.kind === 'run' ? run.runId : `merge-${Date.now()}`);
    try {
      makeDirsSync(dir);
    } catch (e) {
      throw new PaystormError(`--out ${dir} cannot be created (${(e as Error).message}). Pass a writable folder.`, EXIT.usage, 'out');
    }
    const history = join(dir, HISTORY_FILE);
    // The writer numbers exchanges and webhooks in order, exactly as the merge did.
    const writer = new HistoryWriter({ path: history });
    for (const r of merged.records) writer.write(r);
    await writer.close();
    process.stdout.write(`paystorm merge: ${shards.length} shard${shards.length === 1 ? '' : 's'} -> ${history}\n`);
    for (const line of describeOffsets(merged.offsets)) process.stdout.write(`  ${line}\n`);
    // Judged from the merged records in hand, as the history just written holds them.
    const summary = await judgeRecords(merged.records, { thresholds: args.threshold ?? [], scenarioThresholds: (n) => scenarioByName(n)?.thresholds ?? [] });
    await writeReports(dir, summary, { latestDir: dir });
    process.stdout.write(renderConsole(summary, { color: !!process.stdout.isTTY }) + '\n');
    return summary.exitCode;
  },
};
