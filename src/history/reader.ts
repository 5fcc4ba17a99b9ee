/**
 * Streams a history file record by record, in whichever encoding its bytes show
 * (src/history/format.ts): gzip or not, binary frames (src/history/codec.ts) or NDJSON.
 * For NDJSON: Every line is checked for its
 * format version and kind; the first lines, and every run, fault and end record,
 * are validated in full against the v1 schema (validating all of a million
 * exchanges would cost more than judging them). A last line cut short by an
 * interrupted run is tolerated and reported in `stats.truncated`; a bad line
 * anywhere else is an error naming the line.
 *
 * Speed: lines are split on the raw bytes and decoded as Latin-1, which keeps V8's
 * strings one byte wide and JSON.parse fast; the only multi-byte character a history
 * routinely holds, the `…` of key labels, is rewritten to its JSON escape first, and a
 * line with any other non-ASCII byte is decoded as UTF-8 instead.
 */
import { isAscii } from 'node:buffer';
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { BINARY_MAGIC, CodecError, RecordDecoder } from './codec.ts';
import { EXIT, PaystormError } from '../spec/index.ts';
import { HISTORY_VERSION } from './version.ts';
import { historyRecordSchema, reviveRecord, type HistoryRecord } from './schema.ts';

const KINDS = new Set(['run', 'exchange', 'webhook', 'fault', 'end']);
/** Lines validated in full with the zod schema; later exchange and webhook lines get the cheap check only. */
export const FULLY_VALIDATED_LINES = 2_000;
/** Binary records are decoded and handed to the judge this many at a time. */
const BINARY_BATCH_RECORDS = 256;
/** Records are parsed and handed to the judge about this many bytes at a time. */
const BATCH_BYTES = 1 << 18;
/** `…` (U+2026) in UTF-8, read as Latin-1. */
const ELLIPSIS_LATIN1 = '\u00e2\u0080\u00a6';
const ELLIPSIS_UTF8 = Buffer.from('\u2026', 'utf8');
/** What `…` is overwritten with in the bytes: control characters, which valid JSON never holds raw. */
const ELLIPSIS_MARK = '\u0001\u0002\u0003';
const NON_ASCII = /[\u0080-\u00ff]/;

export interface HistoryReadStats {
  lines: number;
  records: number;
  /** The last line, when it was cut short (an interrupted run). */
  truncated: { line: number; text: string } | null;
}

export interface ReadHistoryOptions {
  fullyValidatedLines?: number;
  /** Told about a tolerated truncated last line. */
  onWarning?: (message: string) => void;
  /** Read size (tests use a small one to split lines across reads). */
  chunkBytes?: number;
  /**
   * Follow a history still being written (the live judge): read what is there, wait for more,
   * and end once `follow.done()` is true and everything written before it was read.
   */
  follow?: FollowOptions;
}

export interface FollowOptions {
  /** True once the writer closed the file: read to its end, then stop. */
  done(): boolean;
  /** How long to wait for more bytes (default 100 ms). */
  pollMs?: number;
  /**
   * True while the reader should leave the file alone (the live judge yields to a saturated
   * load, live-judge.ts LoadPacer): it waits, at most `maxHeldMs` from when it first waited since
   * it last reached the end, then reads to the end before it waits again. So a hold delays the
   * judging by at most about maxHeldMs, and never holds what was written before `done()`.
   */
  held?(): boolean;
  /** The longest a hold may keep the reader behind the writer (ms; default FOLLOW_MAX_HELD_MS). */
  maxHeldMs?: number;
}

/** The longest a hold keeps a follower behind the writer before it catches up, unless told otherwise (ms). */
export const FOLLOW_MAX_HELD_MS = 30_000;

function fail(path: string, line: number, what: string): never {
  throw new PaystormError(`${path}:${line}: ${what}`, EXIT.usage, 'history');
}

function decodeLine(buf: Buffer, start: number, end: number): string {
  if (end > start && buf[end - 1] === 13) end--; // CRLF
  let s = buf.toString('latin1', start, end);
  if (s.includes(ELLIPSIS_LATIN1)) s = s.replaceAll(ELLIPSIS_LATIN1, '\\u2026');
  return NON_ASCII.test(s) ? buf.toString('utf8', start, end) : s;
}

export class HistoryFile implements AsyncIterable<HistoryRecord> {
  readonly stats: HistoryReadStats = { lines: 0, records: 0, truncated: null };

  constructor(
    readonly path: string,
    private readonly opts: ReadHistoryOptions = {},
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<HistoryRecord> {
    for await (const batch of this.batches()) yield* batch;
  }

  /** The file as it is being read (not while following one being written). */
  private fileStream: { bytesRead: number } | null = null;

  /** Bytes of the file read so far (compressed, for a gzipped history): a little ahead of the records handed out. */
  bytesRead(): number {
    return this.fileStream?.bytesRead ?? 0;
  }

  /** The records a chunk of the file at a time (what `judge` reads, to spare a promise per record). */
  async *batches(): AsyncGenerator<HistoryRecord[]> {
    const follow = this.opts.follow;
    if (follow) await untilBytes(this.path, 2, follow);
    const gzip = this.startsWithGzip();
    const highWaterMark = this.opts.chunkBytes ?? 1 << 21;
    const fileStream = follow ? null : createReadStream(this.path, { highWaterMark });
    this.fileStream = fileStream;
    const raw: NodeJS.ReadableStream & AsyncIterable<Buffer> = fileStream ?? Readable.from(followFile(this.path, follow!, highWaterMark), { objectMode: false });
    const input: AsyncIterable<Buffer> = gzip ? raw.pipe(createGunzip({ chunkSize: 1 << 18 })) : raw;
    if (gzip) raw.on('error', (e: Error) => (input as NodeJS.ReadWriteStream).emit('error', e));
    const it = input[Symbol.asyncIterator]();
    // The first bytes say which records follow.
    let head: Buffer = Buffer.alloc(0);
    let done = false;
    try {
      while (head.length < BINARY_MAGIC.length && !done) {
        const r = await it.next();
        if (r.done) done = true;
        else head = head.length ? Buffer.concat([head, r.value]) : r.value;
      }
    } catch (e) {
      this.readError(e);
    }
    async function* chunks(): AsyncGenerator<Buffer> {
      if (head.length) yield head;
      if (done) return;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    }
    if (head.subarray(0, BINARY_MAGIC.length).equals(BINARY_MAGIC)) {
      head = head.subarray(BINARY_MAGIC.length);
      yield* this.binaryBatches(chunks());
    } else yield* this.ndjsonBatches(chunks());
  }

  private startsWithGzip(): boolean {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (e) {
      this.readError(e);
    }
    try {
      const b = Buffer.alloc(2);
      return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
    } finally {
      closeSync(fd);
    }
  }

  /** A read or decompression error, as the user should see it. */
  private readError(e: unknown): never {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new PaystormError(`${this.path}: no such history file. Pass the history of a run (reports/<run>/history.bin.gz).`, EXIT.usage, 'history');
    if (code === 'Z_DATA_ERROR') throw new PaystormError(`${this.path}: the gzip data is damaged (${(e as Error).message}); the file is not a whole paystorm history.`, EXIT.usage, 'history');
    throw e;
  }

  private truncatedGzip(e: unknown): boolean {
    return (e as NodeJS.ErrnoException).code === 'Z_BUF_ERROR';
  }

  /** Binary frames: decoded a chunk at a time; a frame cut short at the very end is a truncated run. */
  private async *binaryBatches(input: AsyncIterable<Buffer>): AsyncGenerator<HistoryRecord[]> {
    const full = this.opts.fullyValidatedLines ?? FULLY_VALIDATED_LINES;
    const decoder = new RecordDecoder();
    let rest: Buffer | null = null;
    let n = 0;
    let cut = false;
    try {
      for await (const chunk of input) {
        const buf: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
        let at = 0;
        // A few hundred records at a time: they are judged while still young (cheap to collect).
        for (;;) {
          const objs: unknown[] = [];
          try {
            at = decoder.frames(buf, at, buf.length, objs, BINARY_BATCH_RECORDS);
          } catch (e) {
            if (e instanceof CodecError) fail(this.path, n + objs.length + 1, `record ${n + objs.length + 1} does not decode (${e.message}): the file is damaged`);
            throw e;
          }
          if (objs.length === 0) break;
          const out: HistoryRecord[] = new Array(objs.length);
          for (let i = 0; i < objs.length; i++) {
            n++;
            out[i] = this.check(objs[i], n, n <= full);
          }
          this.stats.lines = n;
          yield out;
        }
        rest = at < buf.length ? Buffer.from(buf.subarray(at)) : null;
      }
    } catch (e) {
      if (this.truncatedGzip(e)) cut = true;
      else this.readError(e);
    }
    if (rest || cut) {
      this.stats.truncated = { line: n + 1, text: rest ? `a binary record cut short (${rest.length} bytes)` : 'the gzip stream ends early' };
      this.opts.onWarning?.(`${this.path}: record ${n + 1} is cut short (an interrupted run?); judged the ${this.stats.records} complete records before it`);
    }
  }

  /** NDJSON lines. */
  private async *ndjsonBatches(input: AsyncIterable<Buffer>): AsyncGenerator<HistoryRecord[]> {
    const full = this.opts.fullyValidatedLines ?? FULLY_VALIDATED_LINES;
    // A line that did not parse: fatal unless it turns out to be the last one.
    let pending: { line: number; text: string } | null = null;
    let n = 0;
    let rest: Buffer | null = null;
    const parseText = (text: string, out: HistoryRecord[]) => {
      n++;
      if (text.length === 0 || /^\s*$/.test(text)) return;
      if (pending) fail(this.path, pending.line, `not valid JSON (${pending.text.slice(0, 60)}…), and it is not the last line, so the file is corrupt rather than cut short`);
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch {
        pending = { line: n, text };
        return;
      }
      out.push(this.check(obj, n, n <= full));
    };
    /** Whole lines in buf[start, end): one Latin-1 string when they are ASCII but for `…`, else line by line. */
    const parseLines = (buf: Buffer, start: number, end: number, out: HistoryRecord[]) => {
      // Mark every `…` in place, then let a native ASCII check decide between the fast and the careful path.
      let marked = false;
      for (let at = buf.indexOf(ELLIPSIS_UTF8, start); at >= 0 && at < end; at = buf.indexOf(ELLIPSIS_UTF8, at + 3)) {
        buf[at] = 1;
        buf[at + 1] = 2;
        buf[at + 2] = 3;
        marked = true;
      }
      if (!isAscii(buf.subarray(start, end))) {
        if (marked) for (let at = buf.indexOf(ELLIPSIS_MARK, start, 'latin1'); at >= 0 && at < end; at = buf.indexOf(ELLIPSIS_MARK, at + 3, 'latin1')) ELLIPSIS_UTF8.copy(buf, at);
        for (let nl = buf.indexOf(10, start); start < end && nl >= 0 && nl < end; nl = buf.indexOf(10, start)) {
          parseText(decodeLine(buf, start, nl), out);
          start = nl + 1;
        }
        return;
      }
      let text = buf.toString('latin1', start, end);
      if (marked) text = text.replaceAll(ELLIPSIS_MARK, '\\u2026');
      let i = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', i)) {
        parseText(text.charCodeAt(nl - 1) === 13 ? text.slice(i, nl - 1) : text.slice(i, nl), out);
        i = nl + 1;
      }
    };
    try {
      for await (const chunk of input) {
        const out: HistoryRecord[] = [];
        let from = 0;
        if (rest) {
          // The line that straddles the previous chunk: joined on its own, so the chunk is never copied.
          const nl = chunk.indexOf(10);
          if (nl < 0) {
            rest = Buffer.concat([rest, chunk]);
            continue;
          }
          const joined = Buffer.concat([rest, chunk.subarray(0, nl + 1)]);
          parseLines(joined, 0, joined.length, out);
          from = nl + 1;
          rest = null;
        }
        const last = chunk.lastIndexOf(10);
        // Parse and hand over a slice at a time, so parsed records die young.
        while (last >= from) {
          const cut = from + BATCH_BYTES >= last ? last : chunk.lastIndexOf(10, from + BATCH_BYTES);
          const upTo = cut >= from ? cut : last;
          parseLines(chunk, from, upTo + 1, out);
          from = upTo + 1;
          this.stats.lines = n;
          if (out.length) yield out.splice(0);
        }
        if (from < chunk.length) rest = Buffer.from(chunk.subarray(from));
        this.stats.lines = n;
        if (out.length) yield out;
      }
    } catch (e) {
      // A gzip stream that ends early: an interrupted run; its last line is then the cut one.
      if (!this.truncatedGzip(e)) this.readError(e);
    }
    if (rest) {
      const out: HistoryRecord[] = [];
      parseText(decodeLine(rest, 0, rest.length), out);
      if (out.length) yield out;
    }
    this.stats.lines = n;
    if (pending) {
      const p = pending as { line: number; text: string };
      this.stats.truncated = { line: p.line, text: p.text.slice(0, 120) };
      this.opts.onWarning?.(`${this.path}:${p.line}: the last line is cut short (an interrupted run?); judged the ${this.stats.records} complete records before it`);
    }
  }

  private check(obj: unknown, line: number, fully: boolean): HistoryRecord {
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) fail(this.path, line, 'not a history record (expected a JSON object)');
    const rec = obj as { v?: unknown; kind?: unknown };
    if (rec.v === undefined && rec.kind === undefined) {
      const keys = Object.keys(rec).slice(0, 6).join(', ');
      fail(this.path, line, `a JSON object with keys ${keys || '(none)'}, not a paystorm history record (expected {"v":${HISTORY_VERSION},"kind":"run"|"exchange"|"webhook"|"fault"|"end",...})`);
    }
    if (rec.v !== HISTORY_VERSION) {
      fail(this.path, line, `history format version ${JSON.stringify(rec.v)} is not supported: this paystorm reads version ${HISTORY_VERSION} ("v":${HISTORY_VERSION}). Judge it with the paystorm that wrote it, or rerun.`);
    }
    if (typeof rec.kind !== 'string' || !KINDS.has(rec.kind)) {
      fail(this.path, line, `unknown record kind ${JSON.stringify(rec.kind)} (history v${HISTORY_VERSION} has run, exchange, webhook, fault, end)`);
    }
    if (fully || (rec.kind !== 'exchange' && rec.kind !== 'webhook')) {
      const r = historyRecordSchema.safeParse(obj);
      if (!r.success) {
        const issue = r.error.issues[0];
        fail(this.path, line, `${rec.kind} record does not match history v${HISTORY_VERSION}: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
      }
    }
    this.stats.records++;
    // A NaN payment amount was written as null: NaN again, as the record was built.
    return reviveRecord(obj as HistoryRecord);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until the file holds `n` bytes, or the writer is done. */
async function untilBytes(path: string, n: number, follow: FollowOptions): Promise<void> {
  for (;;) {
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
      // Not created yet.
    }
    if (size >= n || follow.done()) return;
    await sleep(follow.pollMs ?? 100);
  }
}

/**
 * The bytes of a file that is still growing, in order: what is there, then more as it comes,
 * until the writer is done and the end was read. The writer appends whole batches (gzip members)
 * at increasing offsets, so a read that sees part of a batch sees the rest on the next one.
 */
async function* followFile(path: string, follow: FollowOptions, chunkBytes: number): AsyncGenerator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    let offset = 0;
    const buf = Buffer.allocUnsafe(chunkBytes);
    const maxHeldMs = follow.maxHeldMs ?? FOLLOW_MAX_HELD_MS;
    /** When the reader first waited on a hold since it last reached the end (NaN: it has not). */
    let heldSince = NaN;
    for (;;) {
      // Asked before reading: bytes written before done() turned true are all read below.
      const done = follow.done();
      if (!done && follow.held?.() === true) {
        const now = Date.now();
        if (Number.isNaN(heldSince)) heldSince = now;
        if (now - heldSince < maxHeldMs) {
          await sleep(follow.pollMs ?? 100);
          continue;
        }
      }
      const n = readSync(fd, buf, 0, chunkBytes, offset);
      if (n > 0) {
        offset += n;
        yield Buffer.from(buf.subarray(0, n));
        continue;
      }
      // At the end: caught up, so a later hold may keep it back again.
      heldSince = NaN;
      if (done) return;
      await sleep(follow.pollMs ?? 100);
    }
  } finally {
    closeSync(fd);
  }
}

export function readHistory(path: string, opts: ReadHistoryOptions = {}): HistoryFile {
  return new HistoryFile(path, opts);
}
