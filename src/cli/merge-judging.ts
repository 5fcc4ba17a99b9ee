/**
 * The judging of `paystorm merge` once its shards are read: a writing thread merges them and
 * writes the merged history (history/merge-threads.ts writeMergedHistory) while the merge's judge
 * thread (live-judge.ts MergeJudge) follows the file and judges it with `check`, as a run's live
 * judge follows its history. The two cores share the work (the merge, its decoding and encoding
 * there; the reading and the oracle here), and the verdict is the one `paystorm check` gives of
 * the merged history, from the records in the file.
 */
import { rmSync } from 'node:fs';
import type { Summary } from '../spec/index.ts';
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

/** Writes the merge of the shards to `historyPath` and gives the judge's summary of it. */
export async function judgeMerge(judge: MergeJudge, input: MergeToJudge, historyPath: string): Promise<Summary> {
  // A history left there by an earlier merge into the same folder goes first: the judge follows
  // the file by its path, and would read the old one until the writer truncated it under it.
  rmSync(historyPath, { force: true });
  judge.follow(historyPath);
  await writeMergedHistory(input.shards, input.offsets, input.mixed, historyPath);
  return judge.close();
}
