/**
 * The worker threads of `paystorm merge` (merge-threads.ts starts them), one task each:
 *
 * - `read-k6`: reads a k6 shard (readK6) and decodes its records once, working out as they come
 *   what the merge needs of it (clock offset estimate, scenario progress, latest completion), and
 *   hands it back with its body in shared memory (shard-chunks.ts: the exchanges' texts), in the
 *   merge's order.
 * - `write`: runs the same merge as the main thread (mergeShardInputs over the same chunks and
 *   offsets, so the same records in the same order) and writes it as the history file, while the
 *   main thread judges it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readK6 } from './k6.ts';
import { mergeShardInputs, shardInputOf, type ClockOffset } from './merge.ts';
import { serializeShard, shardOfChunks, streamedShard, type SerializedShard } from './shard-chunks.ts';
import { BatchFile } from './batch-file.ts';
import { BINARY_MAGIC, RecordEncoder } from './codec.ts';
import { encodingOf } from './format.ts';
import { PaystormError } from '../spec/index.ts';
import type { ShardDifference } from './shard-compat.ts';
import type { MergeWorkerMessage, MergeWorkerTask } from './merge-threads.ts';

const port = parentPort!;
const post = (m: MergeWorkerMessage): void => port.postMessage(m);

/** Bytes of the history queued for the disk above which the writer lets its writes complete. */
const HIGH_WATER_BYTES = 8 * 1024 * 1024;

async function readShard(source: string, path: string): Promise<SerializedShard> {
  const k6 = await readK6(path, { onWarning: (m) => post({ warning: m }) });
  return streamedShard(source, 'k6', k6.run, () => k6.records(), { run: k6, path }) ?? serializeShard(shardInputOf({ source, kind: 'k6', records: [...k6.records()] }, { copy: false }));
}

async function writeMerge(path: string, shards: SerializedShard[], offsets: ClockOffset[], mixed: ShardDifference[]): Promise<number> {
  const encoding = encodingOf(path);
  const file = new BatchFile(path, { gzip: encoding.gzip });
  const encoder = encoding.records === 'binary' ? new RecordEncoder() : null;
  if (encoder !== null) file.bytes(BINARY_MAGIC);
  let n = 0;
  for (const r of mergeShardInputs(shards.map(shardOfChunks), offsets, mixed).records()) {
    if (encoder !== null) file.bytes(encoder.encode(r));
    else file.line(JSON.stringify(r));
    if (++n % 1024 === 0 && file.queued > HIGH_WATER_BYTES) await new Promise((resolve) => setImmediate(resolve));
  }
  await file.close();
  return n;
}

async function main(task: MergeWorkerTask): Promise<void> {
  if (task.task === 'read-k6') post({ shard: await readShard(task.source, task.path) });
  else post({ written: await writeMerge(task.path, task.shards, task.offsets, task.mixed) });
}

main(workerData as MergeWorkerTask).catch((e: unknown) => {
  const err = e instanceof Error ? e : new Error(String(e));
  post({ error: { message: err.message, exitCode: err instanceof PaystormError ? err.exitCode : null, field: err instanceof PaystormError ? (err.field ?? null) : null, stack: err.stack ?? '' } });
});
