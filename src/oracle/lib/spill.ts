/**
 * A table of numbers appended once per API answer or create and read only at the end, in order:
 * what an invariant keeps until end-of-run facts (the fault windows, the final server-clock
 * estimate) tell how to judge each row. Only the last chunk stays in memory; full chunks are
 * written to a scratch file, so a soak's rows cost disk, not the judge's heap. Values are kept as
 * 64-bit floats: what is read back is exactly what was pushed, so a verdict cannot depend on
 * where a row was kept.
 *
 * The scratch file is unlinked as soon as it is opened: it is gone when the judge's process
 * ends, however it ends. Its descriptor is closed when the judgement that opened it ends
 * (`ScratchScope`), or once the table is collected if that comes first.
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

/**
 * Rows per chunk: 65,536 rows of two columns are 1 MB in memory. `PAYSTORM_SPILL_CHUNK_ROWS`
 * sets it (tests and the regression corpus run with tiny chunks to spill every history).
 */
export const spillSettings = { chunkRows: chunkRowsFromEnv() ?? 65_536 };

/** A test hook, read when the oracle is loaded: a value that is not a row count is said on stderr and the default kept (it never changes a verdict, only where rows wait). */
function chunkRowsFromEnv(): number | undefined {
  const v = process.env.PAYSTORM_SPILL_CHUNK_ROWS;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (Number.isInteger(n) && n >= 1) return n;
  process.stderr.write(`paystorm: PAYSTORM_SPILL_CHUNK_ROWS: expected a whole number of rows of at least 1 (e.g. 65536), got ${JSON.stringify(v)}; using 65536\n`);
  return undefined;
}

/** An open scratch file: unlinked, so closing it frees its space. */
export interface ScratchFile {
  readonly fd: number;
  closed: boolean;
  /** The judgement whose end closes it (null: only its owner's collection does). */
  scope: ScratchScope | null;
}

function closeFile(file: ScratchFile): void {
  if (file.closed) return;
  file.closed = true;
  file.scope?.files.delete(file);
  file.scope = null;
  closeSync(file.fd);
}

/** Closes a collected table's scratch file (its disk space is freed then: the file was unlinked at open). */
const closeOnCollect = new FinalizationRegistry<ScratchFile>(closeFile);

/**
 * The scratch files one judgement opens, closed together when it ends (judge.ts). A judge's
 * columns live until it is collected, which may be long after a process judged many histories
 * (a test suite, a long-lived service): every one of their descriptors stayed open till then,
 * and such a process ran out of them. A file opened while no scope is entered closes when its
 * owner is collected, as before.
 */
export class ScratchScope {
  readonly files = new Set<ScratchFile>();
  private static current: ScratchScope | null = null;

  /** The scope files opened now are charged to (the judgement whose code runs). */
  static get active(): ScratchScope | null {
    return ScratchScope.current;
  }

  /** Runs `fn` with this scope active: what it opens, however deep, is closed with the scope. */
  within<T>(fn: () => T): T {
    const outer = ScratchScope.current;
    ScratchScope.current = this;
    try {
      return fn();
    } finally {
      ScratchScope.current = outer;
    }
  }

  /** Closes every file still open; a column that reads one after this throws, rather than reading another file. */
  close(): void {
    for (const f of [...this.files]) {
      closeOnCollect.unregister(f);
      closeFile(f);
    }
  }
}

let files = 0;
let written = 0;

/** Scratch files opened by this thread so far (tests: a table that should have spilled did). */
export function scratchFilesOpened(): number {
  return files;
}

/** Bytes written to scratch files by this thread so far (what a judge's scratch files take: bench/oracle-memory.ts). */
export function scratchBytesWritten(): number {
  return written;
}

export class SpillColumns<K extends string> {
  /** Rows pushed. */
  length = 0;
  private readonly rows: number;
  /**
   * The chunk being filled, column-major: column c's rows at [c * cap, (c + 1) * cap). It starts
   * small and doubles up to a chunk, so a short history's tables cost little.
   */
  private chunk: Float64Array;
  private cap: number;
  private inChunk = 0;
  private spilled = 0;
  private fd: ScratchFile | null = null;
  private readonly position: Record<K, number>;

  constructor(
    readonly names: readonly K[],
    rows = spillSettings.chunkRows,
  ) {
    this.rows = rows;
    this.cap = Math.min(rows, 256);
    this.chunk = new Float64Array(this.cap * names.length);
    this.position = Object.fromEntries(names.map((n, i) => [n, i])) as Record<K, number>;
  }

  /** Appends a row given in column order. */
  pushValues(...values: number[]): void {
    if (this.inChunk === this.cap) this.grow();
    const c = this.chunk;
    const n = this.cap;
    for (let i = 0; i < values.length; i++) c[i * n + this.inChunk] = values[i];
    this.length++;
    if (++this.inChunk === this.rows) this.spill();
  }

  /** Doubles the chunk being filled, up to a whole chunk (once, the first time the table gets that long). */
  private grow(): void {
    const cap = Math.min(this.rows, this.cap * 2);
    const next = new Float64Array(cap * this.names.length);
    for (let c = 0; c < this.names.length; c++) next.set(this.chunk.subarray(c * this.cap, c * this.cap + this.inChunk), c * cap);
    this.chunk = next;
    this.cap = cap;
  }

  /** Where a column is in the arrays `chunks()` gives. */
  index(name: K): number {
    return this.position[name];
  }

  /** Rows a chunk holds: row r is in chunk floor(r / chunkRows). */
  get chunkRows(): number {
    return this.rows;
  }

  /** One value, by row (push order) and column position: from memory or one read of the scratch file. */
  valueAt(row: number, column: number): number {
    const n = this.rows;
    const k = Math.floor(row / n);
    const at = row - k * n;
    if (k === this.spilled) return this.chunk[column * this.cap + at];
    const one = new Float64Array(1);
    const bytes = new Uint8Array(one.buffer);
    readScratch(this.fd!, bytes, (k * n * this.names.length + column * n + at) * 8, `row ${row} of ${this.length}`);
    return one[0];
  }

  /** One column of chunk `k` (its rows in push order): from memory, or one read of the scratch file. */
  columnOfChunk(k: number, column: number): Float64Array {
    const n = this.rows;
    if (k === this.spilled) return this.chunk.slice(column * this.cap, column * this.cap + this.inChunk);
    const out = new Float64Array(n);
    const bytes = new Uint8Array(out.buffer);
    readScratch(this.fd!, bytes, (k * n * this.names.length + column * n) * 8, `chunk ${k + 1} of ${this.spilled}`);
    return out;
  }

  /** Rows held in memory now (at most one chunk). */
  get residentRows(): number {
    return this.inChunk;
  }

  /**
   * Every row in push order, a chunk at a time: `cols[index(name)]` holds the chunk's `n` values of
   * that column. The arrays are reused for the next chunk: read them before asking for it.
   * Reading does not consume: a table can be read again (an interim judgement, then the final one)
   * and pushed to after.
   */
  *chunks(): Generator<{ cols: readonly Float64Array[]; n: number }> {
    const width = this.names.length;
    const n = this.rows;
    if (this.spilled > 0) {
      const scratch = new Float64Array(n * width);
      const bytes = new Uint8Array(scratch.buffer);
      const cols = this.names.map((_, i) => scratch.subarray(i * n, (i + 1) * n));
      for (let k = 0; k < this.spilled; k++) {
        readScratch(this.fd!, bytes, k * bytes.length, `chunk ${k + 1} of ${this.spilled}`);
        yield { cols, n };
      }
    }
    const cap = this.cap;
    if (this.inChunk > 0) yield { cols: this.names.map((_, i) => this.chunk.subarray(i * cap, i * cap + this.inChunk)), n: this.inChunk };
  }

  private spill(): void {
    if (this.fd === null) this.fd = openScratch(this);
    const bytes = new Uint8Array(this.chunk.buffer);
    writeScratch(this.fd, bytes, this.spilled * bytes.length);
    this.spilled++;
    this.inChunk = 0;
  }
}

/** Writes all of `bytes` at `pos` of a scratch file; a full disk is an error that names TMPDIR. */
export function writeScratch(file: ScratchFile, bytes: Uint8Array, pos: number): void {
  const fd = usable(file);
  try {
    let put = 0;
    while (put < bytes.length) put += writeSync(fd, bytes, put, bytes.length - put, pos + put);
  } catch (e) {
    throw new Error(`the judge could not write its scratch file in ${tmpdir()} (${(e as Error).message}): free some space there, or set TMPDIR to a directory with room (docs/run.md, Scratch files)`, { cause: e });
  }
  written += bytes.length;
}

/** Fills `into` from `pos` of a scratch file; `what` names the part read when the file ended early. */
export function readScratch(file: ScratchFile, into: Uint8Array, pos: number, what: string): void {
  const fd = usable(file);
  let got = 0;
  while (got < into.length) {
    const r = readSync(fd, into, got, into.length - got, pos + got);
    if (r === 0) throw new Error(`the judge's scratch file ended early (${what}): it was truncated while the judge ran`);
    got += r;
  }
}

/** The descriptor of a file still open; one closed with its judgement is an error, never a read of whatever file got its number since. */
function usable(file: ScratchFile): number {
  if (file.closed) throw new Error("the judge's scratch file was read or written after its judgement ended and closed it");
  return file.fd;
}

/** Opens a scratch file in TMPDIR, unlinked at once; it is closed when the active ScratchScope ends, or when `owner` is collected. */
export function openScratch(owner: object): ScratchFile {
  const path = join(tmpdir(), `paystorm-judge-${process.pid}-${threadId}-${++files}.spill`);
  let fd: number;
  try {
    fd = openSync(path, 'wx+');
  } catch (e) {
    throw new Error(`the judge could not open a scratch file in ${tmpdir()} (${(e as Error).message}): set TMPDIR to a directory it can write`, { cause: e });
  }
  unlinkSync(path);
  const scope = ScratchScope.active;
  const file: ScratchFile = { fd, closed: false, scope };
  scope?.files.add(file);
  closeOnCollect.register(owner, file, file);
  return file;
}

/** Closes a scratch file now, not when its owner is collected (its disk space is freed). */
export function closeScratch(file: ScratchFile): void {
  closeOnCollect.unregister(file);
  closeFile(file);
}
