/**
 * A merge shard (merge.ts ShardInput) whose body is held in chunks in shared memory: compact (no
 * object per record until the merge reaches it), and handed to another thread without a copy.
 * `paystorm merge` hands its shards so to its writing thread, which merges them and writes the
 * merged history its judge thread follows (cli/merge-judging.ts).
 *
 * A k6 shard's chunks hold each exchange's compact record text in UTF-8 (the JSON string literal
 * the k6 file carried, k6.ts K6Run.exchangeText, unescaped), decoded again by the thread that
 * reads the merge: a few hundred bytes an exchange, and decoding it costs less than half of V8's
 * deserialization of the object (which also costs twice a decoding to serialize). Other shards'
 * chunks are V8-serialized records.
 */
import { deserialize, serialize } from 'node:v8';
import type { EndRecord, ExchangeRecord, HistoryRecord, RunRecord } from './schema.ts';
import { completionTime, OffsetEstimate, type ShardInput } from './merge.ts';
import { ScenarioActivity, scenarioProgress } from './scenario-progress.ts';
import { k6ExchangeOfText, type K6Run } from './k6.ts';
import { lineText, unescapedInto } from './k6-lines.ts';

/** Body records per chunk. */
const CHUNK_RECORDS = 1024;
/** Bytes a k6 text chunk starts with (it grows for a chunk of longer texts). */
const TEXT_CHUNK_BYTES = 512 * 1024;

/** A ShardInput as data a worker thread can be sent: its body as serialized chunks. */
export interface SerializedShard extends Omit<ShardInput, 'body'> {
  /** The body in the merge's order, CHUNK_RECORDS records a chunk, in shared memory: V8 serialization, or k6 texts (`k6`). */
  chunks: SharedArrayBuffer[];
  /** Each chunk's records' positions in the shard. */
  positions: Int32Array[];
  /** A k6 shard's chunks are exchange record texts in UTF-8: per chunk, each text's start, end, line and seq (K6Run.exchangeText), and how to decode them. */
  k6?: { path: string; originMs: number; bounds: Int32Array[] };
}

/** Where a body's records go: BodyChunks (V8) or K6TextChunks. */
interface BodySink {
  add(record: HistoryRecord, position: number): void;
  flush(): void;
}

/** A body serialized as it is written, record by record in the merge's order. */
export class BodyChunks implements BodySink {
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

/** A k6 shard's body as its exchanges' texts (the body of a k6 shard is exchanges only). */
class K6TextChunks implements BodySink {
  readonly chunks: SharedArrayBuffer[] = [];
  readonly positions: Int32Array[] = [];
  readonly bounds: Int32Array[] = [];
  /** The chunk being filled (copied into shared memory, cut to size, when it is full). */
  private bytes = new Uint8Array(TEXT_CHUNK_BYTES);
  private used = 0;
  private count = 0;
  private recordPositions = new Int32Array(CHUNK_RECORDS);
  private recordBounds = new Int32Array(4 * CHUNK_RECORDS);

  constructor(private readonly k6: K6Run) {}

  add(record: HistoryRecord, position: number): void {
    if (record.kind !== 'exchange') throw new Error(`a k6 shard's body holds exchanges only, not a ${record.kind} record`);
    const seq = (record as ExchangeRecord).seq;
    this.k6.exchangeText(seq, (buf, start, end, line) => {
      // The literal's text, unescaped into the chunk (never longer than the literal); any literal
      // unescapedInto leaves, through JSON.parse, as UTF-8.
      if (this.used + (end - start) > this.bytes.length) this.grow(end - start);
      let size = unescapedInto(buf, start, end, this.bytes, this.used);
      if (size < 0) size = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).write(JSON.parse(lineText(buf, start, end)) as string, this.used, 'utf8');
      const b = 4 * this.count;
      this.recordBounds[b] = this.used;
      this.recordBounds[b + 1] = this.used + size;
      this.recordBounds[b + 2] = line;
      this.recordBounds[b + 3] = seq;
      this.used += size;
    });
    this.recordPositions[this.count++] = position;
    if (this.count === CHUNK_RECORDS) this.flush();
  }

  flush(): void {
    if (this.count === 0) return;
    // The chunk's bytes, cut to what they hold, in shared memory.
    const shared = new SharedArrayBuffer(this.used);
    new Uint8Array(shared).set(this.bytes.subarray(0, this.used));
    this.chunks.push(shared);
    this.positions.push(this.recordPositions.slice(0, this.count));
    this.bounds.push(this.recordBounds.slice(0, 4 * this.count));
    this.used = 0;
    this.count = 0;
  }

  private grow(size: number): void {
    const next = new Uint8Array(Math.max(2 * this.bytes.length, this.used + size));
    next.set(this.bytes.subarray(0, this.used));
    this.bytes = next;
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

/** A k6 text chunk's exchanges, decoded as K6Run.records() decoded them. */
function k6Records(k6: NonNullable<SerializedShard['k6']>, bytes: SharedArrayBuffer, bounds: Int32Array): HistoryRecord[] {
  const buf = Buffer.from(bytes);
  const out: HistoryRecord[] = new Array(bounds.length / 4);
  for (let i = 0; i < out.length; i++) {
    const b = 4 * i;
    out[i] = k6ExchangeOfText(k6.path, buf.toString('utf8', bounds[b], bounds[b + 1]), bounds[b + 2], bounds[b + 3], k6.originMs);
  }
  return out;
}

/** The shard as the merge reads it: each chunk's records are made when the merge reaches it (one read of the body). */
export function shardOfChunks(shard: SerializedShard): ShardInput {
  const { chunks, positions, k6, ...facts } = shard;
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
        const records = k6 ? k6Records(k6, bytes, k6.bounds[c]) : (deserialize(new Uint8Array(bytes)) as HistoryRecord[]);
        yield { records, positions: positions[c] };
      }
    },
  };
}

/**
 * A shard serialized as its records are read (k6.ts `K6Run.records()`: the run record, exchanges
 * by start, the end record), without holding them all: exchanges come by start, so one that ended no later than the next one started precedes every one still to come,
 * and only those in flight wait (a heap by completion time, then position). Null when a record
 * would go before one already out (an exchange recorded as ending before it started): then the
 * shard is sorted whole.
 */
export function streamedShard(source: string, kind: ShardInput['kind'], run: RunRecord, records: () => Iterable<HistoryRecord>, k6?: { run: K6Run; path: string }): SerializedShard | null {
  const estimate = new OffsetEstimate(run);
  const activity = new ScenarioActivity();
  const ends: EndRecord[] = [];
  const texts = k6 ? new K6TextChunks(k6.run) : null;
  const out: BodySink = texts ?? new BodyChunks();
  const waiting = new CompletionHeap();
  let lastMs = 0;
  let lastOut = -Infinity;
  let position = 0;
  for (const r of records()) {
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
  const progress = scenarioProgress(run, ends.at(-1) ?? null, activity).map((p) => ({ name: p.name, status: p.status }));
  const body = texts ?? (out as BodyChunks);
  const k6Body = texts && k6 ? { k6: { path: k6.path, originMs: k6.run.originMs, bounds: texts.bounds } } : {};
  return { source, kind, run, ends, progress, estimate: estimate.result(), lastMs, chunks: body.chunks, positions: body.positions, ...k6Body };
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
