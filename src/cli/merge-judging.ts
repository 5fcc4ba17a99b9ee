/**
 * The judging of `paystorm merge` once its shards are read: a writing thread merges them and
 * writes the merged history (history/merge-threads.ts writeMergedHistory) while the merge's judge
 * thread (live-judge.ts MergeJudge) follows the file and judges it with `check`, as a run's live
 * judge follows its history. The two cores share the work (the merge, its decoding and encoding
 * there; the reading and the oracle here), and the verdict is the one `paystorm check` gives of
 * the merged history, from the records in the file.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Summary } from '../spec/index.ts';
import { readHistory } from '../history/index.ts';
import type { CheckOptions } from '../oracle/index.ts';
import { unjudgedRecords } from './judge-run.ts';
import { JudgeOutOfMemory } from './live/judge-memory.ts';
import type { ClockOffset } from '../history/merge.ts';
import type { SerializedShard } from '../history/shard-chunks.ts';
import type { ShardDifference } from '../history/shard-compat.ts';
import { writeMergedHistory } from '../history/merge-threads.ts';
import type { MergeJudge } from './live/live-judge.ts';

export interface MergeToJudge {
  shards: SerializedShard[];
  offsets: ClockOffset[];
  mixed: readonly ShardDifference[];
}

/**
 * Writes the merge of the shards to `historyPath` and gives the judge's summary of it. A judge that
 * ran out of memory (live/judge-memory.ts) leaves the metrics and thresholds of the written
 * history, judged here with `unjudged` (the options as `check` takes them), every invariant `error`.
 */
export async function judgeMerge(judge: MergeJudge, input: MergeToJudge, historyPath: string, unjudged: CheckOptions = {}): Promise<Summary> {
  // A history left there by an earlier merge into the same folder goes first: the judge follows
  // the file by its path, and would read the old one until the writer truncated it under it.
  rmSync(historyPath, { force: true });
  judge.follow(historyPath);
  await writeMergedHistory(input.shards, input.offsets, input.mixed, historyPath);
  try {
    return await judge.close();
  } catch (e) {
    if (!(e instanceof JudgeOutOfMemory)) throw e;
    return unjudgedRecords(readHistory(historyPath, { onWarning: () => {} }), e.unjudged(dirname(historyPath)), unjudged);
  }
}
