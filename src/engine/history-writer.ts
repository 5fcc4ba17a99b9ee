/**
 * Streams history records (format v1, src/spec/history.ts) as NDJSON while the
 * run goes. Records are never dropped: when the disk is slower than the run,
 * batches queue up and `needsDrain` turns true so executors can wait on
 * `drained()` before starting more work (back-pressure). Batches are written at
 * explicit file offsets so a synchronous flush at exit can never reorder lines.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, write as fsWrite, writev as fsWritev, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HistoryRecord } from '../spec/index.ts';

export type RecordListener = (record: HistoryRecord) => void;

export interface HistoryWriterOptions {
  /** NDJSON file to stream to (directories are created). */
  path?: string;
  /** In-memory sink: every record is pushed here (tests, small runs). */
  records?: HistoryRecord[];
  /** Called with every record after its seq is assigned (live oracle, metrics, progress). */
  onRecord?: RecordListener;
  /** Queued bytes above which `needsDrain` is true (default 8 MiB). */
  highWaterBytes?: number;
  /** Lines are encoded straight into buffers of this size, each handed to the OS when full (default 256 KiB) ... */
  batchBytes?: number;
  /** ... or after this long (default 200 ms), so the file follows the run. */
  flushIntervalMs?: number;
}

/** Kinds that carry a `seq` (one sequence shared by exchanges and webhooks). */
const SEQ_KINDS = new Set(['exchange', 'webhook']);

export class HistoryWriter {
  /** Records written so far (all kinds). */
  written = 0;
  readonly path: string | null;
  private seq = 0;
  private readonly listeners: RecordListener[] = [];
  private readonly fd: number | null;
  /** The batch being filled: lines are UTF-8 encoded straight into it (no string concatenation, one copy). */
  private cur: Buffer;
  private curLen = 0;
  /** Full batches waiting for the disk, in order. */
  private readonly queue: Buffer[] = [];
  private queuedBytes = 0;
  private readonly spare: Buffer[] = [];
  private inFlight = false;
  private fileOffset = 0;
  private readonly highWater: number;
  private readonly batchBytes: number;
  private timer: NodeJS.Timeout | null = null;
  private drainWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private error: Error | null = null;
  private closed = false;
  private listenerErrorReported = false;

  constructor(opts: HistoryWriterOptions = {}) {
    this.path = opts.path ?? null;
    this.highWater = opts.highWaterBytes ?? 8 * 1024 * 1024;
    this.batchBytes = opts.batchBytes ?? 256 * 1024;
    this.cur = opts.path ? Buffer.allocUnsafeSlow(this.batchBytes) : Buffer.alloc(0);
    if (opts.records) {
      const sink = opts.records;
      this.listeners.push((r) => sink.push(r));
    }
    if (opts.onRecord) this.listeners.push(opts.onRecord);
    if (this.path) {
      mkdirSync(dirname(this.path), { recursive: true });
      this.fd = openSync(this.path, 'w');
      this.timer = setInterval(() => this.flushPending(), opts.flushIntervalMs ?? 200);
      this.timer.unref();
    } else {
      this.fd = null;
    }
  }

  /** A writer streaming to `path`. */
  static open(path: string, opts: Omit<HistoryWriterOptions, 'path'> = {}): HistoryWriter {
    return new HistoryWriter({ ...opts, path });
  }

  /** A writer keeping records in memory (an array) or handing them to a callback. */
  static memory(target: HistoryRecord[] | RecordListener = []): HistoryWriter {
    return Array.isArray(target) ? new HistoryWriter({ records: target }) : new HistoryWriter({ onRecord: target });
  }

  /** Adds a listener; returns its removal. */
  subscribe(listener: RecordListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** The last seq assigned (0 before any). */
  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Writes one record. Exchange and webhook records get the next `seq` (the
   * record is mutated); the seq is returned, or -1 for kinds without one.
   */
  write(record: HistoryRecord): number {
    if (this.closed) throw new Error('HistoryWriter: write after close');
    let seq = -1;
    if (SEQ_KINDS.has(record.kind)) {
      seq = ++this.seq;
      (record as { seq: number }).seq = seq;
    }
    this.written++;
    if (this.fd !== null) this.encode(JSON.stringify(record));
    for (let i = 0; i < this.listeners.length; i++) {
      try {
        this.listeners[i](record);
      } catch (err) {
        // A broken listener must not lose records nor stop the run; say so once.
        if (!this.listenerErrorReported) {
          this.listenerErrorReported = true;
          process.stderr.write(`paystorm: history listener failed: ${(err as Error)?.stack ?? String(err)}\n`);
        }
      }
    }
    return seq;
  }

  private encode(line: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; reserve that so a line never straddles batches.
    const worst = line.length * 3 + 1;
    if (this.curLen + worst > this.cur.length) {
      this.flushPending();
      if (worst > this.cur.length) {
        const big = Buffer.from(line + '\n', 'utf8');
        this.queue.push(big);
        this.queuedBytes += big.length;
        this.pump();
        return;
      }
    }
    this.curLen += this.cur.write(line, this.curLen, 'utf8');
    this.cur[this.curLen++] = 0x0a;
  }

  /** True while more than the high-water mark is queued for the disk. */
  get needsDrain(): boolean {
    return this.queuedBytes + this.curLen > this.highWater;
  }

  /** Resolves once the queue is below the high-water mark. */
  drained(): Promise<void> {
    if (!this.needsDrain) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Bytes waiting to be written. */
  get queued(): number {
    return this.queuedBytes + this.curLen;
  }

  private flushPending(): void {
    if (this.curLen === 0) return;
    this.queue.push(this.cur.subarray(0, this.curLen));
    this.queuedBytes += this.curLen;
    this.cur = this.spare.pop() ?? Buffer.allocUnsafeSlow(this.batchBytes);
    this.curLen = 0;
    this.pump();
  }

  private pump(): void {
    if (this.inFlight || this.queue.length === 0 || this.fd === null) return;
    // Everything queued goes in one writev (fewer syscalls when the disk lags).
    const bufs = this.queue.splice(0, this.queue.length);
    let bytes = 0;
    for (const b of bufs) bytes += b.length;
    const position = this.fileOffset;
    this.fileOffset += bytes;
    this.inFlight = true;
    this.writeBatches(bufs, bytes, position, (err) => {
      this.inFlight = false;
      this.queuedBytes -= bytes;
      for (const b of bufs) if (b.byteOffset === 0 && b.buffer.byteLength === this.batchBytes && this.spare.length < 8) this.spare.push(Buffer.from(b.buffer, b.byteOffset, this.batchBytes));
      if (err && !this.error) this.error = err;
      if (!this.needsDrain && this.drainWaiters.length > 0) {
        const waiters = this.drainWaiters;
        this.drainWaiters = [];
        for (const w of waiters) w();
      }
      if (this.queue.length > 0) this.pump();
      else if (this.idleWaiters.length > 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
    });
  }

  private writeBatches(bufs: Buffer[], bytes: number, position: number, done: (err: Error | null) => void): void {
    if (bufs.length === 1) return this.writeAll(bufs[0], 0, position, done);
    fsWritev(this.fd!, bufs, position, (err, n) => {
      if (err) return done(err);
      if (n >= bytes) return done(null);
      // A short write: finish the rest from one joined buffer.
      this.writeAll(Buffer.concat(bufs), n, position + n, done);
    });
  }

  private writeAll(buf: Buffer, from: number, position: number, done: (err: Error | null) => void): void {
    fsWrite(this.fd!, buf, from, buf.length - from, position, (err, n) => {
      if (err) return done(err);
      if (from + n < buf.length) return this.writeAll(buf, from + n, position + n, done);
      done(null);
    });
  }

  /** Flushes everything and closes the file. Rejects if any write failed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flushPending();
    if (this.inFlight || this.queue.length > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.fd !== null) {
      fsyncSync(this.fd);
      closeSync(this.fd);
    }
    for (const w of this.drainWaiters.splice(0)) w();
    if (this.error) throw this.error;
  }

  /**
   * Synchronous last-resort flush for `process.on('exit')`: writes what is not
   * yet handed to the OS at the offsets after any write still in flight.
   */
  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.fd === null) return;
    const buf = Buffer.concat([...this.queue, this.cur.subarray(0, this.curLen)]);
    this.queue.length = 0;
    this.curLen = 0;
    if (buf.length > 0) {
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off, this.fileOffset + off);
      this.fileOffset += buf.length;
    }
    // An async write still in flight owns its own offset; the fd stays open for it.
    if (!this.inFlight) closeSync(this.fd);
  }
}
