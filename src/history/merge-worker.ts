/**
 * The worker threads of `paystorm merge` (merge-threads.ts starts them), one task each:
 *
 * - `read-k6`: reads a k6 shard (readK6) and decodes its records once, working out as they come
 *   what the merge needs of it (clock offset estimate, scenario progress, latest completion), and
 *   hands it back with its body serialized in shared memory (shard-chunks.ts), in the merge's order.
 * - `write`: runs the same merge as the main thread (mergeShardInputs over the same chunks and
 *   offsets, so the same records in the same order) and writes it as the history file, while the
 *   main thread judges it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readK6, type K6Run } from './k6.ts';
import { completionTime, mergeShardInputs, OffsetEstimate, shardInputOf, type ClockOffset } from './merge.ts';
import { BodyChunks, serializeShard, shardOfChunks, type SerializedShard } from './shard-chunks.ts';
import { ScenarioActivity, scenarioProgress } from './scenario-progress.ts';
import type { EndRecord, HistoryRecord } from './schema.ts';
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
  return streamedShard(source, k6) ?? serializeShard(shardInputOf({ source, kind: 'k6', records: [...k6.records()] }, { copy: false }));
}

/**
 * The shard serialized as its records are decoded, without holding them all: exchanges come by
 * start, so one that ended no later than the next one started precedes every one still to come,
 * and only those in flight wait (a heap by completion time, then position). Null when a record
 * would go before one already out (an exchange recorded as ending before it started): then the
 * shard is sorted whole.
 */
function streamedShard(source: string, k6: K6Run): SerializedShard | null {
  const estimate = new OffsetEstimate(k6.run);
  const activity = new ScenarioActivity();
  const ends: EndRecord[] = [];
  const out = new BodyChunks();
  const waiting = new CompletionHeap();
  let lastMs = 0;
  let lastOut = -Infinity;
  let position = 0;
  for (const r of k6.records()) {
    const at = position++;
    if (r.kind === 'run') continue;
    if (r.kind === 'end') {
      ends.push(r);
      continue;
    }
    activity.add(r);
    if (r.kind === 'exchange') estimate.add(r);
    const t = completionTime(r);
    if (t > lastMs) lastMs = t;
    if (t < lastOut) return null;
    const start = r.kind === 'exchange' ? r.tStart : t;
    while (waiting.size > 0 && waiting.minTime() <= start) {
      lastOut = waiting.minTime();
      const [rec, pos] = waiting.pop();
      out.add(rec, pos);
    }
    waiting.push(r, t, at);
  }
  while (waiting.size > 0) {
    const [rec, pos] = waiting.pop();
    out.add(rec, pos);
  }
  out.flush();
  const progress = scenarioProgress(k6.run, ends.at(-1) ?? null, activity).map((p) => ({ name: p.name, status: p.status }));
  return { source, kind: 'k6', run: k6.run, ends, progress, estimate: estimate.result(), lastMs, chunks: out.chunks, positions: out.positions };
}

/** Records by completion time, then position (a binary min-heap). */
class CompletionHeap {
  private readonly records: HistoryRecord[] = [];
  private readonly times: number[] = [];
  private readonly positions: number[] = [];

  get size(): number {
    return this.records.length;
  }

  minTime(): number {
    return this.times[0];
  }

  private before(i: number, j: number): boolean {
    return this.times[i] < this.times[j] || (this.times[i] === this.times[j] && this.positions[i] < this.positions[j]);
  }

  private swap(i: number, j: number): void {
    [this.records[i], this.records[j]] = [this.records[j], this.records[i]];
    [this.times[i], this.times[j]] = [this.times[j], this.times[i]];
    [this.positions[i], this.positions[j]] = [this.positions[j], this.positions[i]];
  }

  push(record: HistoryRecord, time: number, position: number): void {
    let i = this.records.length;
    this.records.push(record);
    this.times.push(time);
    this.positions.push(position);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): [HistoryRecord, number] {
    const top: [HistoryRecord, number] = [this.records[0], this.positions[0]];
    const last = this.records.length - 1;
    this.swap(0, last);
    this.records.pop();
    this.times.pop();
    this.positions.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < last && this.before(l, m)) m = l;
      if (r < last && this.before(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return top;
  }
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
