/**
 * The judging of `paystorm merge` once its shards are read: this thread writes the merged
 * history while the merge's judge thread (live-judge.ts MergeJudge) follows the file and judges
 * it with `check`, as a run's live judge follows its history. The two cores share the work (the
 * merge and the encoding here, the reading and the oracle there), and the verdict is the one
 * `paystorm check` gives of the merged history, from the records in the file.
 */
import type { Summary } from '../spec/index.ts';
import type { MergeStream } from '../history/merge.ts';
import { writeRecords } from '../history/records-file.ts';
import type { MergeJudge } from './live/live-judge.ts';

/** Writes the merge to `historyPath` and gives the judge's summary of it. */
export async function judgeMerge(judge: MergeJudge, merged: MergeStream, historyPath: string): Promise<Summary> {
  judge.follow(historyPath);
  await writeRecords(historyPath, merged.records());
  return judge.close();
}
