/**
 * An append-only history file: NDJSON lines (UTF-8 encoded straight into pooled batch
 * buffers) or binary frames (src/history/codec.ts), handed to the OS in one `writev` when a
 * batch fills or a timer fires, at explicit file offsets (so a synchronous flush at exit can
 * never reorder them). With `gzip`, each batch is written as a gzip member of its own (a
 * file of members is one gzip stream to every reader, `zcat` included), so a synchronous
 * flush at exit still leaves a whole file. Used by the history writer on the main thread, or
 * by its worker thread (src/history/worker.ts) when the writer offloads.
 */
import { makeDirsSync } from './dirs.ts';
import { closeSync, fsyncSync, openSync, write as fsWrite, writev as fsWritev, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { constants as zlibConstants, gzipSync } from 'node:zlib';

export interface BatchFileOptions {
  /** Lines are encoded straight into buffers of this size (default 256 KiB) ... */
  batchBytes?: number;
  /** ... handed to the OS when full or after this long (default 200 ms). */
  flushIntervalMs?: number;
  /** Called after each write completes with the sum of the `cost`s of the lines it carried. */
  onWritten?: (cost: number) => void;
  /** Compress each batch as a gzip member (level 1: the records are already compact). */
  gzip?: boolean;
  /**
   * Hand the batch to the OS once the `cost` of its items reaches this, full or not (default: no
   * limit). Compact records fill a batch slowly, while the writer waits on their cost being
   * acknowledged: without this, back-pressure would wait on the flush timer.
   */
  flushCost?: number;
}

export class BatchFile {
  private readonly fd: number;
  private cur: Buffer;
  private curLen = 0;
  private curCost = 0;
  private readonly queue: Buffer[] = [];
  private readonly queueCost: number[] = [];
  private queuedBytes = 0;
  private readonly spare: Buffer[] = [];
  private inFlight = false;
  private fileOffset = 0;
  private readonly batchBytes: number;
  private readonly timer: NodeJS.Timeout;
  private idleWaiters: (() => void)[] = [];
  private readonly onWritten: ((cost: number) => void) | undefined;
  private readonly gzip: boolean;
  private readonly flushCost: number;
  error: Error | null = null;
  private closed = false;

  constructor(path: string, opts: BatchFileOptions = {}) {
    this.batchBytes = opts.batchBytes ?? 256 * 1024;
    this.onWritten = opts.onWritten;
    this.gzip = opts.gzip === true;
    this.flushCost = opts.flushCost ?? Infinity;
    this.cur = Buffer.allocUnsafeSlow(this.batchBytes);
    makeDirsSync(dirname(path));
    this.fd = openSync(path, 'w');
    this.timer = setInterval(() => this.flushPending(), opts.flushIntervalMs ?? 200);
    this.timer.unref();
  }

  /** Bytes not yet written. */
  get queued(): number {
    return this.queuedBytes + this.curLen;
  }

  /** Appends one line (`line` without its `\n`). */
  line(line: string, cost = 0): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; reserve that so a line never straddles batches.
    const worst = line.length * 3 + 1;
    if (this.curLen + worst > this.cur.length) {
      this.flushPending();
      if (worst > this.cur.length) {
        this.enqueue(this.packed(Buffer.from(line + '\n', 'utf8')), cost);
        this.pump();
        return;
      }
    }
    this.curLen += this.cur.write(line, this.curLen, 'utf8');
    this.cur[this.curLen++] = 0x0a;
    this.curCost += cost;
    if (this.curCost >= this.flushCost) this.flushPending();
  }

  /** Appends bytes as they are (a binary frame); copied, so the caller may reuse `bytes`. */
  bytes(bytes: Buffer, cost = 0): void {
    if (this.curLen + bytes.length > this.cur.length) {
      this.flushPending();
      if (bytes.length > this.cur.length) {
        this.enqueue(this.packed(Buffer.from(bytes)), cost);
        this.pump();
        return;
      }
    }
    this.curLen += bytes.copy(this.cur, this.curLen);
    this.curCost += cost;
    if (this.curCost >= this.flushCost) this.flushPending();
  }

  /** A batch as it goes to disk: itself, or its gzip member. */
  private packed(batch: Buffer): Buffer {
    return this.gzip ? gzipSync(batch, { level: 1, memLevel: 9, strategy: zlibConstants.Z_DEFAULT_STRATEGY }) : batch;
  }

  private enqueue(buf: Buffer, cost: number): void {
    this.queue.push(buf);
    this.queueCost.push(cost);
    this.queuedBytes += buf.length;
  }

  flushPending(): void {
    if (this.curLen === 0) {
      if (this.curCost > 0) {
        const c = this.curCost;
        this.curCost = 0;
        this.onWritten?.(c);
      }
      return;
    }
    if (this.gzip) {
      // Compressed into a buffer of its own: the batch buffer is free again at once.
      this.enqueue(this.packed(this.cur.subarray(0, this.curLen)), this.curCost);
      this.curLen = 0;
      this.curCost = 0;
      this.pump();
      return;
    }
    this.enqueue(this.cur.subarray(0, this.curLen), this.curCost);
    this.cur = this.spare.pop() ?? Buffer.allocUnsafeSlow(this.batchBytes);
    this.curLen = 0;
    this.curCost = 0;
    this.pump();
  }

  private pump(): void {
    if (this.inFlight || this.queue.length === 0 || this.closed) return;
    // Everything queued goes in one writev (fewer syscalls when the disk lags).
    const bufs = this.queue.splice(0, this.queue.length);
    let cost = 0;
    for (const c of this.queueCost.splice(0, this.queueCost.length)) cost += c;
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
      this.onWritten?.(cost);
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
    fsWritev(this.fd, bufs, position, (err, n) => {
      if (err) return done(err);
      if (n >= bytes) return done(null);
      // A short write: finish the rest from one joined buffer.
      this.writeAll(Buffer.concat(bufs), n, position + n, done);
    });
  }

  private writeAll(buf: Buffer, from: number, position: number, done: (err: Error | null) => void): void {
    fsWrite(this.fd, buf, from, buf.length - from, position, (err, n) => {
      if (err) return done(err);
      if (from + n < buf.length) return this.writeAll(buf, from + n, position + n, done);
      done(null);
    });
  }

  /** Flushes everything, fsyncs and closes the file. Rejects if any write failed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flushPending();
    if (this.inFlight || this.queue.length > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.closed = true;
    clearInterval(this.timer);
    fsyncSync(this.fd);
    closeSync(this.fd);
    if (this.error) throw this.error;
  }

  /**
   * Synchronous last-resort flush (process exit): writes what is not yet handed
   * to the OS at the offsets after any write still in flight.
   */
  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    const buf = Buffer.concat([...this.queue, this.curLen > 0 ? this.packed(this.cur.subarray(0, this.curLen)) : Buffer.alloc(0)]);
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
