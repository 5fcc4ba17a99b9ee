/**
 * The judging of `paystorm merge` once its shards are read, on two threads that both run the
 * merge (mergeShardInputs over the same chunks in shared memory, so the same records in the same
 * order): the judge thread (live-judge.ts MergeJudge) runs the invariants, while this thread
 * folds what `check` folds besides them (check.ts CheckFolds: metrics, threshold scopes, drift,
 * rate boundary, faults) and writes the merged history. check.ts `checkResultOf` puts the two
 * together, so the summary is the one `check` gives over the merged records on one thread.
 */
import type { Summary } from '../spec/index.ts';
import type { MergeStream, ClockOffset } from '../history/merge.ts';
import type { SerializedShard } from '../history/shard-chunks.ts';
import type { ShardDifference } from '../history/shard-compat.ts';
import { writeRecords } from '../history/records-file.ts';
import { CheckFolds, checkResultOf, type CheckOptions } from '../oracle/check.ts';
import type { MergeJudge } from './live/live-judge.ts';

export interface MergeToJudge {
  shards: SerializedShard[];
  offsets: ClockOffset[];
  mixed: readonly ShardDifference[];
  /** This thread's mergeShardInputs of them (its records not read yet). */
  merged: MergeStream;
}

/** Judges the merge and writes it to `historyPath`: the summary, as `check` gives it. */
export async function judgeMerge(judge: MergeJudge, input: MergeToJudge, historyPath: string, opts: CheckOptions): Promise<Summary> {
  const judgement = judge.judgement(input.shards, input.offsets, input.mixed);
  const folds = new CheckFolds(opts);
  await writeRecords(historyPath, input.merged.records(), (r) => folds.add(r));
  return checkResultOf(await judgement, folds, opts).summary;
}
