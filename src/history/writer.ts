/**
 * Streams history records (format v1, src/history/schema.ts) while the run goes, encoded
 * as the file's name says (src/history/format.ts): NDJSON, or compact binary frames
 * (src/history/codec.ts), optionally gzip-compressed. Records are never dropped: when the disk is slower than the run,
 * batches queue up and `needsDrain` turns true so executors can wait on
 * `drained()` before starting more work (back-pressure). Batches are written at
 * explicit file offsets so a synchronous flush at exit can never reorder lines.
 *
 * Offload mode (opt-in, `offload: true`): serializing and writing happen on a
 * worker thread (src/history/worker.ts), and the client hands it raw
 * exchanges (`writeCapture`) whose records the worker builds. Lines keep the
 * order in which they were queued here (seq order). Listeners still get every
 * record on this thread, synchronously and in that same order; for a raw
 * exchange it is a view whose body-derived fields (payment, list, error, ...)
 * are built here only if a listener reads them.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerScript } from './worker-script.ts';
import type { ExchangeRecord, HistoryRecord } from './schema.ts';
import { BODY_PARSE_MAX_CHARS, type ExchangeCapture, type ExchangeOffload } from './exchange-record.ts';
import { BatchFile } from './batch-file.ts';
import { BINARY_MAGIC, RecordEncoder } from './codec.ts';
import { encodingOf } from './format.ts';
import { TAG_CARD, TAG_KEY, TAG_LINE, captureCost, lineCost, pushCapture, type FromWorker, type Slot } from './worker-protocol.ts';

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
  /**
   * Build, serialize and write on a worker thread (needs `path`; default false: with it on, the
   * 1M-request memory bench peaks at ~250 MB RSS against its 200 MB bar, see bench/README.md).
   */
  offload?: boolean;
}

/** The worker's script as the build inlined it into the compiled CLI (scripts/build.mjs); undefined when the sources run. */
declare const PAYSTORM_HISTORY_WORKER: string | undefined;

/** The worker's code (worker.ts and what it imports) as one script (worker-script.ts). */
export function workerSource(): string {
  return workerScript(typeof PAYSTORM_HISTORY_WORKER === 'string' ? PAYSTORM_HISTORY_WORKER : undefined, fileURLToPath(new URL('./worker.ts', import.meta.url)));
}

/** Kinds that carry a `seq` (one sequence shared by exchanges and webhooks). */
const SEQ_KINDS = new Set(['exchange', 'webhook']);

/** Items sent to the worker per message at most; smaller batches go out on a short timer. */
const MAX_BATCH_ITEMS = 512;
const BATCH_DELAY_MS = 2;

export class HistoryWriter implements ExchangeOffload {
  /** Records written so far (all kinds). */
  written = 0;
  readonly path: string | null;
  private seq = 0;
  private readonly listeners: RecordListener[] = [];
  private readonly file: BatchFile | null = null;
  /** Binary encoding on this thread (main-thread mode of a binary file). */
  private readonly encoder: RecordEncoder | null = null;
  private readonly highWater: number;
  private drainWaiters: (() => void)[] = [];
  private closed = false;
  private listenerErrorReported = false;

  // Offload mode.
  private readonly worker: Worker | null = null;
  private outItems: Slot[] = [];
  private outCount = 0;
  private sendTimer: NodeJS.Timeout | null = null;
  /** Cost queued to the worker and not yet acknowledged as written. */
  private outstanding = 0;
  private workerError: Error | null = null;
  /** The worker died (error or unexpected exit): nothing more reaches the file; records written since are counted. */
  private lost = false;
  private writtenAfterLoss = 0;
  private closeResult: ((err: string | null) => void) | null = null;
  private buildErrorReported = false;

  constructor(opts: HistoryWriterOptions = {}) {
    this.path = opts.path ?? null;
    // Offload: a smaller queue, since every queued exchange lives twice (as sent, and as built on the worker).
    this.highWater = opts.highWaterBytes ?? (opts.offload === true ? 2 : 8) * 1024 * 1024;
    if (opts.records) {
      const sink = opts.records;
      this.listeners.push((r) => sink.push(r));
    }
    if (opts.onRecord) this.listeners.push(opts.onRecord);
    if (!this.path) return;
    const encoding = encodingOf(this.path);
    if (opts.offload !== true) {
      this.file = new BatchFile(this.path, {
        ...(opts.batchBytes !== undefined ? { batchBytes: opts.batchBytes } : {}),
        ...(opts.flushIntervalMs !== undefined ? { flushIntervalMs: opts.flushIntervalMs } : {}),
        onWritten: () => this.wakeDrainWaiters(),
        gzip: encoding.gzip,
      });
      if (encoding.records === 'binary') {
        this.encoder = new RecordEncoder();
        this.file.bytes(BINARY_MAGIC);
      }
      return;
    }
    this.worker = new Worker(workerSource(), {
      eval: true,
      workerData: { path: this.path, batchBytes: opts.batchBytes, flushIntervalMs: opts.flushIntervalMs, encoding, flushCost: this.highWater / 4 },
      // A small young generation: the worker's garbage is short-lived lines and captures (RSS bound).
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
      execArgv: process.env.PAYSTORM_PROF_WORKER ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.PAYSTORM_PROF_WORKER] : [],
    });
    this.worker.unref();
    this.worker.on('message', this.onWorkerMessage);
    this.worker.on('error', (err) => {
      this.workerError ??= err;
      this.workerLost();
      this.closeResult?.(err.message);
    });
    this.worker.on('exit', (code) => {
      // An exit not asked for by close() (or before it answered): the worker is gone with what it held.
      if (!this.closed) {
        this.workerError ??= new Error(`the history worker exited (code ${code})`);
        this.workerLost();
      }
      if (this.closeResult) this.closeResult(this.workerError ? this.workerError.message : null);
    });
  }

  /** A writer streaming to `path`. */
  static open(path: string, opts: Omit<HistoryWriterOptions, 'path'> = {}): HistoryWriter {
    return new HistoryWriter({ ...opts, path });
  }

  /** A writer keeping records in memory (an array) or handing them to a callback. */
  static memory(target: HistoryRecord[] | RecordListener = []): HistoryWriter {
    return Array.isArray(target) ? new HistoryWriter({ records: target }) : new HistoryWriter({ onRecord: target });
  }

  /** True when exchanges may be handed over raw (`writeCapture`) to be built on the worker thread. */
  get offloading(): boolean {
    return this.worker !== null;
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
    if (this.file !== null) {
      if (this.encoder !== null) this.file.bytes(this.encoder.encode(record));
      else this.file.line(JSON.stringify(record));
    }
    else if (this.lost) this.writtenAfterLoss++;
    else if (this.worker !== null) {
      const line = JSON.stringify(record);
      this.outstanding += lineCost(line);
      this.outItems.push(TAG_LINE, line);
      this.queued1();
    }
    this.deliver(record);
    return seq;
  }

  /**
   * Offload mode: queues a raw exchange; the worker builds, serializes and
   * writes its record. Listeners get `view()` at once, in write order: a record
   * whose body-derived fields are built on this thread only when read. Returns its seq.
   */
  writeCapture(c: Omit<ExchangeCapture, 'seq'>, view?: (seq: number) => ExchangeRecord): number {
    if (this.closed) throw new Error('HistoryWriter: write after close');
    if (this.worker === null) throw new Error('HistoryWriter: writeCapture needs offload mode');
    const seq = ++this.seq;
    this.written++;
    if (this.lost) this.writtenAfterLoss++;
    else {
      this.outstanding += captureCost(c.body);
      pushCapture(this.outItems, seq, c);
      // A body too long to parse goes to the worker in a message of its own: a batch of several would
      // arrive in its heap at once.
      if (c.body.length > BODY_PARSE_MAX_CHARS) this.sendBatch();
      else this.queued1();
    }
    if (view !== undefined && this.listeners.length > 0) this.deliver(view(seq));
    return seq;
  }

  addScanKey(secret: string, label: string): void {
    if (!this.worker || this.lost) return;
    this.outItems.push(TAG_KEY, secret, label);
    this.queued1();
  }

  addScanCard(number: string): void {
    if (!this.worker || this.lost) return;
    this.outItems.push(TAG_CARD, number);
    this.queued1();
  }

  /** One more item is in `outItems`: send the batch when full, or soon. */
  private queued1(): void {
    if (++this.outCount >= MAX_BATCH_ITEMS) this.sendBatch();
    else if (this.sendTimer === null) this.sendTimer = setTimeout(this.sendBatch, BATCH_DELAY_MS);
  }

  private readonly sendBatch = (): void => {
    if (this.sendTimer !== null) {
      clearTimeout(this.sendTimer);
      this.sendTimer = null;
    }
    if (this.outItems.length === 0 || this.worker === null || this.lost) return;
    const items = this.outItems;
    this.outItems = [];
    this.outCount = 0;
    this.worker.postMessage({ items });
  };

  private deliver(record: HistoryRecord): void {
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
  }

  private readonly onWorkerMessage = (m: FromWorker): void => {
    if ('ack' in m) {
      this.outstanding -= m.ack;
      this.wakeDrainWaiters();
    } else if ('buildError' in m) {
      if (!this.buildErrorReported) {
        this.buildErrorReported = true;
        process.stderr.write(`paystorm: an exchange record could not be built: ${m.buildError}\n`);
      }
    } else if ('closed' in m) {
      this.closeResult?.(m.error);
    }
  };

  /**
   * The worker is gone (out of memory, a crash): what it acknowledged is in the file, what it held is
   * not. Say so at once, release executors waiting on drained() (nothing will drain now), and let the
   * run go on to close(), which fails with the same message so the incomplete history is not judged.
   */
  private workerLost(): void {
    if (this.lost) return;
    this.lost = true;
    this.outItems = [];
    this.outCount = 0;
    this.outstanding = 0;
    process.stderr.write(`paystorm: ${this.lossMessage()}\n`);
    for (const w of this.drainWaiters.splice(0)) w();
  }

  private lossMessage(): string {
    const after = this.writtenAfterLoss > 0 ? `, and the ${this.writtenAfterLoss} written after it failed` : '';
    return `the history worker failed (${this.workerError?.message ?? 'unknown error'}): ${this.path} holds only the records it wrote before; those it had not written yet${after} are lost, so the history is incomplete`;
  }

  private wakeDrainWaiters(): void {
    if (!this.needsDrain && this.drainWaiters.length > 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** True while more than the high-water mark is queued for the disk. */
  get needsDrain(): boolean {
    return !this.lost && this.queued > this.highWater;
  }

  /** Resolves once the queue is below the high-water mark. */
  drained(): Promise<void> {
    if (!this.needsDrain) return Promise.resolve();
    if (this.worker) this.sendBatch();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Bytes waiting to be written (offload mode: an estimate, counted until the worker wrote them). */
  get queued(): number {
    return this.file ? this.file.queued : this.outstanding;
  }

  /** Flushes everything and closes the file. Rejects if any write failed. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.worker) {
      this.sendBatch();
      this.worker.ref();
      const err = await new Promise<string | null>((resolve) => {
        this.closeResult = resolve;
        if (this.workerError) resolve(this.workerError.message);
        else this.worker!.postMessage({ close: true });
      });
      this.closeResult = null;
      this.closed = true;
      for (const w of this.drainWaiters.splice(0)) w();
      await this.worker.terminate();
      if (this.lost) throw new Error(`HistoryWriter: ${this.lossMessage()}`);
      if (err) throw new Error(`HistoryWriter: ${err}`);
      return;
    }
    this.closed = true;
    for (const w of this.drainWaiters.splice(0)) w();
    if (this.file) await this.file.close();
  }

  /**
   * Synchronous last-resort flush for `process.on('exit')`: writes what is not
   * yet handed to the OS at the offsets after any write still in flight.
   */
  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.worker) {
      // A dead worker answers nothing: do not wait on it.
      if (this.lost) return;
      this.sendBatch();
      const flag = new Int32Array(new SharedArrayBuffer(4));
      this.worker.postMessage({ sync: flag });
      // The worker builds and writes what it was sent, then says so (bounded wait: it may be gone).
      Atomics.wait(flag, 0, 0, 10_000);
      return;
    }
    this.file?.closeSync();
  }
}
