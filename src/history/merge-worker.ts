/**
 * A worker thread of `paystorm merge` (merge-threads.ts starts them). `read-k6`: reads a k6 shard
 * (readK6) and decodes its records once, working out as they come what the merge needs of it
 * (clock offset estimate, scenario progress, latest completion), and hands it back with its body
 * serialized in shared memory (shard-chunks.ts: the exchanges' texts), in the merge's order.
 * `write`: merges the shards so read and writes the merged history.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readK6 } from './k6.ts';
import { mergeShardInputs, shardInputOf } from './merge.ts';
import { serializeShard, shardOfChunks, streamedShard, type SerializedShard } from './shard-chunks.ts';
import { writeRecords } from './records-file.ts';
import { PaystormError } from '../spec/index.ts';
import type { MergeWorkerMessage, MergeWorkerTask } from './merge-threads.ts';

const port = parentPort!;
const post = (m: MergeWorkerMessage): void => port.postMessage(m);

async function readShard(source: string, path: string): Promise<SerializedShard> {
  const k6 = await readK6(path, { onWarning: (m) => post({ warning: m }) });
  return streamedShard(source, 'k6', k6.run, () => k6.records(), { run: k6, path }) ?? serializeShard(shardInputOf({ source, kind: 'k6', records: [...k6.records()] }, { copy: false }));
}

async function main(task: MergeWorkerTask): Promise<void> {
  if (task.task === 'read-k6') post({ shard: await readShard(task.source, task.path) });
  else post({ written: await writeRecords(task.historyPath, mergeShardInputs(task.shards.map(shardOfChunks), task.offsets, task.mixed).records()) });
}

main(workerData as MergeWorkerTask).catch((e: unknown) => {
  const err = e instanceof Error ? e : new Error(String(e));
  post({ error: { message: err.message, exitCode: err instanceof PaystormError ? err.exitCode : null, field: err instanceof PaystormError ? (err.field ?? null) : null, stack: err.stack ?? '' } });
});
