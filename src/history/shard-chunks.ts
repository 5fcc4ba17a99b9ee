/**
 * A merge shard (merge.ts ShardInput) whose body is held as V8-serialized chunks in shared
 * memory: compact (no object per record until the merge reaches it), and readable from several
 * threads at once without a copy. `paystorm merge` hands its shards so to the thread that
 * writes the merged history while the main thread judges the same merge (merge-threads.ts).
 */
import { deserialize, serialize } from 'node:v8';
import type { HistoryRecord } from './schema.ts';
import type { ShardInput } from './merge.ts';

/** Body records per chunk. */
const CHUNK_RECORDS = 1024;

/** A ShardInput as data a worker thread can be sent: its body as serialized chunks. */
export interface SerializedShard extends Omit<ShardInput, 'body'> {
  /** The body in the merge's order, CHUNK_RECORDS records a chunk (V8 serialization, in shared memory). */
  chunks: SharedArrayBuffer[];
  /** Each chunk's records' positions in the shard. */
  positions: Int32Array[];
}

/** A body serialized as it is written, record by record in the merge's order. */
export class BodyChunks {
  readonly chunks: SharedArrayBuffer[] = [];
  readonly positions: Int32Array[] = [];
  private records: HistoryRecord[] = [];
  private recordPositions = new Int32Array(CHUNK_RECORDS);

  add(record: HistoryRecord, position: number): void {
    this.recordPositions[this.records.length] = position;
    this.records.push(record);
    if (this.records.length === CHUNK_RECORDS) this.flush();
  }

  /** The last records into a chunk; call once all are added. */
  flush(): void {
    if (this.records.length === 0) return;
    const bytes = serialize(this.records);
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    this.chunks.push(shared);
    this.positions.push(this.recordPositions.slice(0, this.records.length));
    this.records = [];
  }
}

/** The shard with its body serialized (read once from `input.body()`). */
export function serializeShard(input: ShardInput): SerializedShard {
  const { body, ...facts } = input;
  const out = new BodyChunks();
  for (const chunk of body()) for (let k = 0; k < chunk.records.length; k++) out.add(chunk.records[k], chunk.positions[k]);
  out.flush();
  return { ...facts, chunks: out.chunks, positions: out.positions };
}

/** The shard as the merge reads it: each chunk's records are made when the merge reaches it (one read of the body). */
export function shardOfChunks(shard: SerializedShard): ShardInput {
  const { chunks, positions, ...facts } = shard;
  // This thread's hold on the chunks, let go of one by one as the merge reads them.
  let held: (SharedArrayBuffer | null)[] | null = [...chunks];
  return {
    ...facts,
    body: function* () {
      if (held === null) throw new Error(`${shard.source}: the shard's body was read already`);
      const mine = held;
      held = null;
      for (let c = 0; c < mine.length; c++) {
        const bytes = mine[c]!;
        mine[c] = null;
        yield { records: deserialize(new Uint8Array(bytes)) as HistoryRecord[], positions: positions[c] };
      }
    },
  };
}
