/**
 * Reading k6's `--out json` output fast (src/history/k6.ts converts it): a fleet's hour is
 * about 15 lines per request, tens of millions of lines, so lines are found and read on the
 * raw bytes and only what the converter needs becomes a string.
 *
 * - lineChunks: the file's bytes (gunzipped a megabyte at a time when it is gzip: zlib's
 *   per-call cost dominates at small chunk sizes), a chunk of whole lines at a time.
 * - PointBytes.read: a Point line in the exact shape k6 writes one,
 *   `{"metric":"NAME","type":"Point","data":{"time":"TIME","value":NUMBER,"tags":{…}}}`, and
 *   the exchange record's `…,"tags":{…},"metadata":{"paystorm_record":"TEXT"}}}`, read in place:
 *   the fixed parts compared four bytes at a time, the name and time matched against the ones seen
 *   before (a request's HTTP points share one time), the value read by JSON's number grammar
 *   (no exponent, at most 15 digits: digits / 10^k is then exactly what JSON.parse gives), the
 *   tags parsed by JSON.parse once per distinct text, the record's text checked to be one JSON
 *   string literal (and left as bytes: the converter keeps it so, and parses it when it decodes). Any other shape (a Metric line, another metadata key, an escape in the
 *   name or time, a brace in a tag value, spaces, a cut line) is not read here: the caller
 *   parses that line whole, so what is accepted and refused does not depend on this reader.
 */
import { isAscii } from 'node:buffer';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { createGunzip } from 'node:zlib';

export function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** Bytes read and gunzipped at a time. */
const CHUNK_BYTES = 1 << 20;

/**
 * The file's bytes, a chunk of whole lines at a time (each chunk ends with a newline but the
 * last, which may end without one); a broken gzip rejects. `read`, when given, is handed a way to
 * ask for the bytes of the file read so far (compressed, for a gzipped file): how far a long read got.
 */
export async function* lineChunks(path: string, chunkBytes = CHUNK_BYTES, read?: { bytes: () => number }): AsyncGenerator<Buffer> {
  const raw = createReadStream(path, { highWaterMark: chunkBytes });
  if (read) read.bytes = () => raw.bytesRead;
  const input = isGzip(path) ? raw.pipe(createGunzip({ chunkSize: Math.max(64, chunkBytes) })) : raw;
  raw.on('error', (e) => input.destroy(e));
  // The start of a line that goes on in the next chunk (copied: the stream may reuse its buffer).
  let rest: Buffer | null = null;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let from = 0;
      if (rest !== null) {
        // The line that straddles two chunks, on its own (the chunk itself is not copied).
        const nl = chunk.indexOf(10);
        if (nl < 0) {
          rest = Buffer.concat([rest, chunk]);
          continue;
        }
        yield Buffer.concat([rest, chunk.subarray(0, nl + 1)]);
        rest = null;
        from = nl + 1;
      }
      const last = chunk.lastIndexOf(10);
      if (last < from) {
        rest = from < chunk.length ? Buffer.from(chunk.subarray(from)) : null;
        continue;
      }
      if (last + 1 < chunk.length) rest = Buffer.from(chunk.subarray(last + 1));
      yield chunk.subarray(from, last + 1);
    }
  } finally {
    input.destroy();
  }
  if (rest) yield rest;
}

/** `…` (U+2026, in key labels) read as Latin-1. */
const ELLIPSIS_LATIN1 = '\u00e2\u0080\u00a6';
const NON_ASCII = /[\u0080-\u00ff]/;

/**
 * The text of buf[start, end): as Latin-1 (a one-byte string: JSON.parse reads it many times
 * faster than the two-byte string UTF-8 makes of text with one `…`) when the bytes are ASCII
 * but for `…`, which is written as its JSON escape (it only occurs inside JSON strings); as
 * UTF-8 otherwise.
 */
export function lineText(buf: Buffer, start: number, end: number): string {
  const latin1 = buf.toString('latin1', start, end);
  if (isAscii(buf.subarray(start, end))) return latin1;
  const escaped = latin1.replaceAll(ELLIPSIS_LATIN1, '\\u2026');
  return NON_ASCII.test(escaped) ? buf.toString('utf8', start, end) : escaped;
}

/**
 * The text a JSON string literal buf[start, end) (its quotes included) holds, written as UTF-8
 * into out[at, …) (room for end - start bytes): returns the bytes written, or -1 when the
 * literal is one this does not read (any escape but `\"`, `\\` and `\/`, a control byte, no
 * closing quote at end - 1); then JSON.parse(lineText(…)) gives its text, or says why not.
 * An exchange record's text is handed on so (its thread decodes it with one `utf8Slice`, not
 * a Latin-1 string, a scan for `…` and a JSON.parse of the literal), and all it escapes is the
 * quotes of its strings: other bytes, `…` included, are copied as they are (valid UTF-8 in, so
 * valid UTF-8 out).
 */
export function unescapedInto(buf: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  if (end - start < 2 || buf[start] !== 0x22 || buf[end - 1] !== 0x22) return -1;
  let o = at;
  const last = end - 1;
  for (let i = start + 1; i < last; i++) {
    const b = buf[i];
    if (b === 0x5c) {
      const c = buf[++i];
      if (i < last && (c === 0x22 || c === 0x5c || c === 0x2f)) out[o++] = c;
      else return -1;
    } else if (b === 0x22 || b < 0x20) return -1;
    else out[o++] = b;
  }
  return o - at;
}

let scratch = Buffer.allocUnsafe(1 << 16);

/** The text a JSON string literal buf[start, end) holds (unescapedInto, or JSON.parse for the literals it leaves); throws as JSON.parse does. */
export function literalText(buf: Buffer, start: number, end: number): string {
  if (scratch.length < end - start) scratch = Buffer.allocUnsafe(2 * (end - start));
  const n = unescapedInto(buf, start, end, scratch, 0);
  return n >= 0 ? scratch.toString('utf8', 0, n) : (JSON.parse(lineText(buf, start, end)) as string);
}

/** A metric seen in the file: its name, and what the reader's user keeps for it. */
export interface MetricName {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** The user's (the converter keeps its counts here). */
  slot: unknown;
}

/** A distinct tag set seen in the file, parsed once. */
export interface TagSet {
  readonly tags: Readonly<Record<string, string>>;
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** The user's (the converter keeps what it derives from the tags here). */
  slot: unknown;
}

const viewOf = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const HEAD = ascii('{"metric":"');
const AFTER_NAME = ascii('","type":"Point","data":{"time":"');
const AFTER_TIME = ascii('","value":');
const BEFORE_TAGS = ascii(',"tags":{');
const METADATA = ascii('},"metadata":{"paystorm_record":"');
const HEAD_V = viewOf(HEAD);
const AFTER_NAME_V = viewOf(AFTER_NAME);
const AFTER_TIME_V = viewOf(AFTER_TIME);
const BEFORE_TAGS_V = viewOf(BEFORE_TAGS);
/** Digits a value may have to be read here: their integer stays exact in a double. */
const VALUE_DIGITS_MAX = 15;
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);
/** Distinct tag sets remembered (k6 repeats a few on most lines; per-request tags, such as iter, would not repeat). */
const TAG_SETS_MAX = 4096;
const QUOTE = 34;
const BACKSLASH = 92;
const BRACE_OPEN = 123;
const BRACE_CLOSE = 125;

/** buf[start, end) is one JSON string literal, quotes included (what JSON.parse reads as one string). */
export function isStringLiteral(buf: Uint8Array, start: number, end: number): boolean {
  if (end - start < 2 || buf[start] !== QUOTE || buf[end - 1] !== QUOTE) return false;
  for (let i = start + 1; i < end - 1; i++) {
    const c = buf[i];
    if (c === QUOTE || c < 32) return false;
    if (c !== BACKSLASH) continue;
    const e = buf[++i];
    if (e === 117) {
      // \uXXXX
      if (i + 4 >= end - 1) return false;
      for (let k = 1; k <= 4; k++) {
        const h = buf[i + k];
        if (!((h >= 48 && h <= 57) || (h >= 65 && h <= 70) || (h >= 97 && h <= 102))) return false;
      }
      i += 4;
    } else if (e !== QUOTE && e !== BACKSLASH && e !== 47 && e !== 98 && e !== 102 && e !== 110 && e !== 114 && e !== 116) return false;
  }
  return true;
}

/** v[at, at + n) equals p[0, n), compared four bytes at a time (a line's fixed parts and repeated texts are most of its bytes). */
function sameView(v: DataView, at: number, p: DataView, n: number): boolean {
  let i = 0;
  for (; i + 4 <= n; i += 4) if (v.getUint32(at + i) !== p.getUint32(i)) return false;
  for (; i < n; i++) if (v.getUint8(at + i) !== p.getUint8(i)) return false;
  return true;
}

/** k6 time text -> Unix ms (the converter's k6TimeMs, which reads any RFC 3339 form). */
export type TimeParser = (text: string) => number;

/**
 * Reads Point lines in place (see the module's comment). After `read` returns true, `metric`,
 * `timeMs`, `value`, `tags` hold the line's; for a point of `recordMetric`, `recordStart` and
 * `recordEnd` are where its `paystorm_record` text lies as a JSON string literal, quotes
 * included (-1 for other metrics; a point of it without that metadata is not read here).
 */
export class PointBytes {
  metric!: MetricName;
  timeMs = NaN;
  value = 0;
  tags!: TagSet;
  recordStart = -1;
  recordEnd = -1;

  private readonly metrics = new Map<number, MetricName[]>();
  private readonly tagSets = new Map<number, TagSet[]>();
  private tagSetCount = 0;
  private lastTags: TagSet | null = null;
  /** The last time's bytes and value. */
  private readonly lastTime = new Uint8Array(64);
  private readonly lastTimeView = viewOf(this.lastTime);
  private view: DataView = new DataView(new ArrayBuffer(0));
  private viewBuf: Uint8Array | null = null;
  private lastTimeLength = 0;
  /** The second (`YYYY-MM-DDTHH:MM:SS`) and zone of the last time read in full, and its ms. */
  private readonly head = new Uint8Array(19);
  private readonly headView = viewOf(this.head);
  private headZone = -1;
  private headMs = NaN;

  /** `recordMetric`: the metric whose points carry a record in their metadata. */
  constructor(
    private readonly parseTime: TimeParser,
    private readonly recordMetric: string,
  ) {}

  /** The Point on the line buf[start, end) (no newline), or false. */
  read(buf: Buffer, start: number, end: number): boolean {
    if (end - start < 80 || buf[end - 1] !== BRACE_CLOSE || buf[end - 2] !== BRACE_CLOSE || buf[end - 3] !== BRACE_CLOSE) return false;
    if (buf !== this.viewBuf) {
      this.viewBuf = buf;
      this.view = viewOf(buf);
    }
    const v = this.view;
    if (!sameView(v, start, HEAD_V, HEAD.length)) return false;
    // The name: up to its quote (an escape would make that quote not its end).
    const nameStart = start + HEAD.length;
    let hash = 0;
    let i = nameStart;
    for (; i < end; i++) {
      const c = buf[i];
      if (c === QUOTE) break;
      if (c === BACKSLASH) return false;
      hash = (hash * 31 + c) | 0;
    }
    if (i + AFTER_NAME.length > end || !sameView(v, i, AFTER_NAME_V, AFTER_NAME.length)) return false;
    const metric = this.metricAt(buf, nameStart, i, hash);
    // The time.
    const timeStart = i + AFTER_NAME.length;
    const timeEnd = buf.indexOf(QUOTE, timeStart);
    if (timeEnd < 0 || timeEnd + AFTER_TIME.length > end || !sameView(v, timeEnd, AFTER_TIME_V, AFTER_TIME.length)) return false;
    const timeMs = this.timeAt(buf, timeStart, timeEnd);
    if (timeMs === undefined) return false;
    // The value: JSON's number grammar without an exponent, up to VALUE_DIGITS_MAX digits.
    i = timeEnd + AFTER_TIME.length;
    const negative = buf[i] === 45;
    if (negative) i++;
    let digits = 0;
    let n = 0;
    let c = buf[i] - 48;
    if (c === 0) {
      i++;
      digits++;
    } else if (c > 0 && c <= 9) {
      for (; c >= 0 && c <= 9; c = buf[++i] - 48) {
        n = n * 10 + c;
        digits++;
      }
    } else return false;
    let k = 0;
    if (buf[i] === 46) {
      for (c = buf[++i] - 48; c >= 0 && c <= 9; c = buf[++i] - 48) {
        n = n * 10 + c;
        k++;
      }
      if (k === 0) return false;
    }
    if (digits + k > VALUE_DIGITS_MAX || i + BEFORE_TAGS.length > end || !sameView(v, i, BEFORE_TAGS_V, BEFORE_TAGS.length)) return false;
    // The tags: to the line's end, or to the metadata that carries a record.
    const tagsStart = i + BEFORE_TAGS.length - 1;
    let tagsEnd = end - 2;
    let recordStart = -1;
    if (metric.name === this.recordMetric) {
      const meta = buf.indexOf(METADATA, tagsStart);
      if (meta < 0 || meta >= end) return false;
      tagsEnd = meta + 1;
      recordStart = meta + METADATA.length - 1;
      if (!isStringLiteral(buf, recordStart, end - 3)) return false;
    }
    const tags = this.tagsAt(buf, tagsStart, tagsEnd);
    if (tags === null) return false;
    this.metric = metric;
    this.timeMs = timeMs;
    this.value = negative ? -(n / POW10[k]) : n / POW10[k];
    this.tags = tags;
    this.recordStart = recordStart;
    this.recordEnd = recordStart < 0 ? -1 : end - 3;
    return true;
  }

  private metricAt(buf: Buffer, start: number, end: number, hash: number): MetricName {
    const list = this.metrics.get(hash);
    const length = end - start;
    if (list !== undefined) for (const m of list) if (m.bytes.length === length && sameView(this.view, start, m.view, length)) return m;
    const bytes = Uint8Array.prototype.slice.call(buf, start, end);
    const m: MetricName = { name: lineText(buf, start, end), bytes, view: viewOf(bytes), slot: undefined };
    if (list === undefined) this.metrics.set(hash, [m]);
    else list.push(m);
    return m;
  }

  /** Unix ms of the time buf[start, end) (NaN when it is no time: as k6TimeMs); undefined for text that needs its escapes read. */
  private timeAt(buf: Buffer, start: number, end: number): number | undefined {
    const length = end - start;
    if (length === this.lastTimeLength && sameView(this.view, start, this.lastTimeView, length)) return this.timeMs;
    let ms: number;
    // The same second and zone (`Z`) as the time read in full before: only the fraction is read.
    if (this.headZone === 0 && length > 21 && buf[end - 1] === 90 && buf[start + 19] === 46 && sameView(this.view, start, this.headView, 19)) {
      let d = 0;
      let k = 0;
      for (let i = start + 20; i < end - 1; i++) {
        const c = buf[i] - 48;
        if (c < 0 || c > 9) return this.timeInFull(buf, start, end);
        if (k < 6) {
          d = d * 10 + c;
          k++;
        }
      }
      ms = this.headMs + (d / POW10[k]) * 1000;
    } else {
      const full = this.timeInFull(buf, start, end);
      if (full === undefined) return undefined;
      ms = full;
    }
    if (length <= this.lastTime.length) {
      this.lastTime.set(buf.subarray(start, end));
      this.lastTimeLength = length;
    } else this.lastTimeLength = -1;
    this.timeMs = ms;
    return ms;
  }

  private timeInFull(buf: Buffer, start: number, end: number): number | undefined {
    for (let i = start; i < end; i++) if (buf[i] === BACKSLASH || buf[i] > 127) return undefined;
    const text = buf.toString('latin1', start, end);
    const ms = this.parseTime(text);
    // The second it falls in, for the next times (UTC only: k6 writes UTC).
    const m = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.exec(text);
    if (m && Number.isFinite(ms)) {
      this.head.set(buf.subarray(start, start + 19));
      this.headZone = 0;
      this.headMs = Date.parse(`${text.slice(0, 19)}Z`);
    }
    return ms;
  }

  private tagsAt(buf: Buffer, start: number, end: number): TagSet | null {
    const last = this.lastTags;
    const length = end - start;
    if (last !== null && last.bytes.length === length && sameView(this.view, start, last.view, length)) return last;
    const list = this.tagSets.get(length);
    if (list !== undefined) {
      for (const t of list) {
        if (sameView(this.view, start, t.view, length)) {
          this.lastTags = t;
          return t;
        }
      }
    }
    if (length < 2 || buf[start] !== BRACE_OPEN || buf[end - 1] !== BRACE_CLOSE) return null;
    for (let i = start + 1; i < end - 1; i++) if (buf[i] === BRACE_OPEN || buf[i] === BRACE_CLOSE) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(lineText(buf, start, end));
    } catch {
      return null;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    if (this.tagSetCount >= TAG_SETS_MAX) {
      this.tagSets.clear();
      this.tagSetCount = 0;
    }
    const bytes = Uint8Array.prototype.slice.call(buf, start, end);
    const t: TagSet = { tags: Object.freeze(parsed as Record<string, string>), bytes, view: viewOf(bytes), slot: undefined };
    if (list === undefined || this.tagSetCount === 0) this.tagSets.set(length, [t]);
    else list.push(t);
    this.tagSetCount++;
    this.lastTags = t;
    return t;
  }
}

/** Arena chunk size: texts are copied into few large buffers (no heap object per text for the GC to trace). */
const ARENA_CHUNK = 32 << 20;

/**
 * Many short texts kept as UTF-8 bytes in a few large buffers: a million exchange records held
 * as objects cost gigabytes and most of the time goes to the garbage collector tracing them.
 */
export class TextArena {
  private readonly chunks: Buffer[] = [];
  private chunk: Buffer = Buffer.allocUnsafe(0);
  private used = 0;
  /** Per text: its chunk, start and end. */
  private readonly where: number[] = [];

  get length(): number {
    return this.where.length / 3;
  }

  /** Keeps `text`; returns its index. */
  add(text: string): number {
    const bytes = Buffer.byteLength(text);
    const chunk = this.room(bytes);
    const start = this.used;
    this.used += chunk.write(text, start);
    return this.kept(start);
  }

  /** Keeps the bytes buf[start, end); returns their index. */
  addBytes(buf: Buffer, start: number, end: number): number {
    const chunk = this.room(end - start);
    const at = this.used;
    buf.copy(chunk, at, start, end);
    this.used += end - start;
    return this.kept(at);
  }

  private room(bytes: number): Buffer {
    if (this.used + bytes > this.chunk.length) {
      this.chunk = Buffer.allocUnsafe(Math.max(ARENA_CHUNK, bytes));
      this.chunks.push(this.chunk);
      this.used = 0;
    }
    return this.chunk;
  }

  private kept(start: number): number {
    this.where.push(this.chunks.length - 1, start, this.used);
    return this.length - 1;
  }

  /** Where text `index`'s bytes are: handed to `use(chunk, start, end)`. */
  bytesOf<T>(index: number, use: (chunk: Buffer, start: number, end: number) => T): T {
    const w = index * 3;
    return use(this.chunks[this.where[w]], this.where[w + 1], this.where[w + 2]);
  }
}
