/**
 * How much memory a judge thread may use. The oracle keeps something for every payment a run
 * made and reads one key's rate-limit rows back at the end (docs/oracle.md, Memory: about 75 bytes
 * a request on the synthetic history, most of it that read-back), so a soak's
 * judge outgrows Node's default heap limit (about 4 GB) long before it outgrows the machine:
 * with it, `paystorm check` of 16M synthetic records (some two hours at 2,000 requests a second)
 * ended in a V8 abort after 10 minutes, and 8M took about twice as long as with room, the
 * collector working near the limit. Every judge thread (a run's live judge, `check`, `merge`)
 * gets its own limit: by default three quarters of the machine's memory (or the container's,
 * when it is limited), never less than Node's own; `--judge-memory MB` sets it. A judge that
 * runs out of it is reported, not fatal: the run's other figures are kept, and its history can
 * be judged again with more.
 */
import { statfsSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { EXIT, PaystormError } from '../../spec/index.ts';
import type { Unjudged } from '../../oracle/index.ts';

const MB = 2 ** 20;

/** The least a judge may be given: the oracle alone takes about 100 MB. */
export const JUDGE_MEMORY_MIN_MB = 256;

/** The share of the machine's memory a judge gets unless told otherwise. */
const DEFAULT_SHARE = 0.75;

/** The memory this process may use: the container's limit when it has one below the machine's. */
export function machineMemoryMb(): number {
  const total = totalmem();
  const limited = typeof process.constrainedMemory === 'function' ? Number(process.constrainedMemory() ?? 0) : 0;
  return Math.floor((limited > 0 && limited < total ? limited : total) / MB);
}

/** Node's own heap limit for this process (MB). */
export function nodeHeapLimitMb(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / MB);
}

/** The judge's limit when --judge-memory is not given (MB). */
export function defaultJudgeMemoryMb(): number {
  return Math.max(nodeHeapLimitMb(), Math.floor(machineMemoryMb() * DEFAULT_SHARE));
}

/** --judge-memory as given (a whole number of megabytes), checked; undefined: the default. */
export function judgeMemoryMbOf(value: unknown): number {
  if (value === undefined) return defaultJudgeMemoryMb();
  const machine = machineMemoryMb();
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < JUDGE_MEMORY_MIN_MB || n > machine) {
    throw new PaystormError(
      `--judge-memory: the judge's memory in megabytes, a whole number from ${JUDGE_MEMORY_MIN_MB} to ${machine} (this machine's memory), e.g. ${Math.min(machine, 8192)}; got ${typeof value === 'number' && Number.isNaN(value) ? 'something that is not a number' : `"${String(value)}"`}.`,
      EXIT.usage,
      '--judge-memory',
    );
  }
  return n;
}

/** A judge thread stopped at its memory limit (Node's ERR_WORKER_OUT_OF_MEMORY). */
export class JudgeOutOfMemory extends Error {
  constructor(readonly limitMb: number) {
    super(`the judge ran out of memory (its limit is ${limitMb.toLocaleString('en')} MB)`);
    this.name = 'JudgeOutOfMemory';
  }

  /** The command that judges the kept history with more memory: twice the limit, or on a machine with more. */
  recheck(historyPath: string): string {
    const more = Math.min(machineMemoryMb(), this.limitMb * 2);
    return more > this.limitMb
      ? `judge it with more memory: paystorm check ${historyPath} --judge-memory ${more} (or on a machine with more)`
      : `judge it on a machine with more memory: paystorm check ${historyPath} --judge-memory MB`;
  }

  /** Why nothing was judged and what the user can do: judge the kept history again with more memory. */
  unjudged(historyPath: string): Unjudged {
    const how = this.recheck(historyPath);
    return { short: this.message, full: `${this.message}, so no invariant was judged. The oracle keeps about 75 bytes a request, most of it one key's rate-limit rows read back at the end (docs/oracle.md, Memory). The history is kept: ${how}` };
  }
}

/** Whether a Worker's 'error' is its memory limit. */
export function isWorkerOutOfMemory(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/** The share of its limit at which a judge says it is running out. */
export const JUDGE_MEMORY_WARN_SHARE = 0.8;

/**
 * Watches the judge thread's heap as records are judged, and says once, with `warn`, when it has
 * used most of its limit: a soak's operator can then plan a re-check with more memory (or stop
 * the run) before the judge runs out. Looked at every `every` records (a heap statistics call
 * costs a few microseconds; 5,000 records, a few tens of milliseconds of judging, grow the heap
 * by a few megabytes, so even a small limit is looked at well before it is reached). The heap in
 * use counts garbage not yet collected; near its limit V8 collects often, so a heap this full
 * holds mostly what the judge keeps.
 */
export class HeapWatch {
  private seen = 0;
  private said = false;

  constructor(
    private readonly warn: (message: string) => void,
    /** --judge-memory as given (MB): the heap's limit also counts the young generation. */
    private readonly limitMb: number | undefined,
    private readonly every = 5_000,
    private readonly heap: () => { used: number; limit: number } = () => {
      const h = getHeapStatistics();
      return { used: h.used_heap_size, limit: h.heap_size_limit };
    },
  ) {}

  /** `n` more records judged. */
  judged(n: number): void {
    const before = this.seen;
    this.seen += n;
    if (this.said || Math.floor(before / this.every) === Math.floor(this.seen / this.every)) return;
    const { used, limit } = this.heap();
    if (used < JUDGE_MEMORY_WARN_SHARE * limit) return;
    this.said = true;
    const mb = (b: number) => Math.round(b / MB).toLocaleString('en');
    const more = Math.round((this.seen * limit) / used);
    const of = this.limitMb !== undefined ? `${mb(limit)} MB: --judge-memory ${this.limitMb.toLocaleString('en')} and the young generation` : `${mb(limit)} MB`;
    this.warn(
      `the judge has used ${Math.round((100 * used) / limit)}% of its memory (${mb(used)} of ${of}) after ${this.seen.toLocaleString('en')} records: at this rate it runs out at about ${more.toLocaleString('en')}, and the invariants are then not judged (the metrics are). Judge a longer run with more: --judge-memory MB (docs/run.md)`,
    );
  }
}

/**
 * What the judge holds per request of a run, measured on the synthetic history (bench/oracle-memory.ts:
 * 52.1 MB of live state at 4,000,000 records, 3,147,444 of them requests: 17 B, most of it fixed,
 * since the state now grows by about 11 B a payment), with room for the rows of one key read back
 * at the end (about 60 B a request when all are on one key: a table of 44 B a row, 48 once seqs
 * pass 2^24, and 16 B of orders and groups, one set for every rate rule) and for the notes of flows that history
 * has few of (3DS, the hosted page, webhook retries). Until the oracle's memory is bounded
 * (docs/oracle.md, Memory), a run's length is bounded by it.
 */
export const JUDGE_BYTES_PER_REQUEST = 75;
/** The same per record of a history (webhook deliveries and fault windows are records too): 52.1 MB at 4,000,000 (13 B), and the read-back. */
export const JUDGE_BYTES_PER_RECORD = 60;
/**
 * What the judge writes to its scratch files per request (lib/spill.ts: the rate samples and spans
 * kept for the end; lib/paged-column.ts: the old pages of the per-payment columns), measured on the
 * same history: 906.8 MB at 4,000,000 records (288 B a request, with the indexes' runs: lib/hash-slots.ts), and each table's last chunk.
 */
export const JUDGE_SCRATCH_BYTES_PER_REQUEST = 290;
/** The same per record: 906.8 MB at 4,000,000 (227 B), and each table's last chunk. */
export const JUDGE_SCRATCH_BYTES_PER_RECORD = 230;
/** The share of a directory's free space the scratch files may take before it is said. */
const SCRATCH_WARN_SHARE = 0.9;

/** Bytes free to this process in the file system holding `dir`, or null when it cannot be read (no such directory). */
export function freeBytesOf(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/**
 * Said before the load of a run (or early in the `check` of a long history) whose judge's scratch
 * files would not fit in the free space of the temporary directory: a judge that cannot write them
 * fails every invariant it reads them for ("error", never a pass), so a soak should learn it now.
 * `what`: "this run plans about N requests" or the like; null when they fit.
 */
function scratchForecast(what: string, n: number, bytesEach: number, unit: string, dir: string, free: number | null): string | null {
  if (free === null) return `${what}, and the judge writes its scratch files in ${dir} (TMPDIR), which it cannot read: set TMPDIR to a directory it can write, with room for about ${bytesEach} bytes a ${unit}.`;
  const needMb = (n * bytesEach) / MB;
  if (n * bytesEach <= SCRATCH_WARN_SHARE * free) return null;
  const fits = Math.floor((SCRATCH_WARN_SHARE * free) / bytesEach);
  return (
    `${what}, and the judge writes about ${bytesEach} bytes a ${unit} of scratch files (docs/oracle.md, Memory): about ${sizeOfMb(needMb)} in ${dir}, which has ${sizeOfMb(free / MB)} free. ` +
    `Past about ${countOf(fits)} ${unit}s its invariants would be "error" (the metrics are kept): free some space there, or set TMPDIR to a directory with room.`
  );
}

/** judgeScratchForecast for a run's plan: null when its judge's scratch files fit in `dir` (default the temporary directory). */
export function judgeScratchForecast(requests: number, dir = tmpdir(), free = freeBytesOf(dir)): string | null {
  return scratchForecast(`this run plans about ${countOf(requests)} requests`, requests, JUDGE_SCRATCH_BYTES_PER_REQUEST, 'request', dir, free);
}

/**
 * Said before the load of a run planned to make more requests than its judge can hold (80% of its
 * limit, where HeapWatch warns): how much it needs and where it would stop. Null when it fits.
 */
export function judgeMemoryForecast(requests: number, limitMb: number, machineMb = machineMemoryMb()): string | null {
  const over = overLimit(requests, JUDGE_BYTES_PER_REQUEST, limitMb);
  if (!over) return null;
  const fix = over.wantMb <= machineMb ? `give it --judge-memory ${over.wantMb}` : `this machine has ${sizeOfMb(machineMb)}: run it on one with about ${sizeOfMb(over.wantMb)} or more, or make it shorter`;
  return (
    `this run plans about ${countOf(requests)} requests, and the judge keeps about ${JUDGE_BYTES_PER_REQUEST} bytes a request (docs/oracle.md, Memory): about ${sizeOfMb(over.needMb)}, ` +
    `more than it can use of its ${sizeOfMb(limitMb)} limit (--judge-memory). Past about ${countOf(over.fits)} requests it would stop, and the invariants would be "error" (the metrics are kept): ${fix}.`
  );
}

/**
 * `n` things (requests, records) at `bytesEach` against a limit of `limitMb`: null when they fit in
 * the share of it a judge can use (JUDGE_MEMORY_WARN_SHARE, where HeapWatch warns); else the MB they
 * need, how many fit, and the limit they would fit in.
 */
function overLimit(n: number, bytesEach: number, limitMb: number): { needMb: number; fits: number; wantMb: number } | null {
  const needMb = (n * bytesEach) / MB;
  if (needMb <= JUDGE_MEMORY_WARN_SHARE * limitMb) return null;
  return { needMb, fits: Math.floor((JUDGE_MEMORY_WARN_SHARE * limitMb * MB) / bytesEach), wantMb: Math.ceil(needMb / JUDGE_MEMORY_WARN_SHARE) };
}

/**
 * `paystorm check` of a history file too long for its judge, said early: once the first records
 * (and the share of the file they took) foretell how many the file holds. Said once, when the
 * forecast passes 80% of the limit; the judge goes on (the forecast may be wrong), and HeapWatch
 * warns again at 80% of the heap itself.
 */
export class JudgeFileForecast {
  private said = false;
  private records = 0;

  constructor(
    private readonly warn: (message: string) => void,
    private readonly limitMb: number,
    private readonly fileBytes: number,
    private readonly bytesRead: () => number,
    /** Records read before the share of the file is trusted to foretell the rest. */
    private readonly after = 100_000,
    /** Where the judge writes its scratch files (lib/spill.ts), and how to learn its free bytes. */
    private readonly scratch: { dir: string; free: (dir: string) => number | null } = { dir: tmpdir(), free: freeBytesOf },
  ) {}

  judged(n: number): void {
    this.records += n;
    if (this.said || this.records < this.after || this.fileBytes <= 0) return;
    const read = this.bytesRead();
    if (read <= 0) return;
    this.said = true;
    const total = (this.records * this.fileBytes) / Math.min(read, this.fileBytes);
    const scratch = scratchForecast(`this history holds about ${countOf(total)} records`, total, JUDGE_SCRATCH_BYTES_PER_RECORD, 'record', this.scratch.dir, this.scratch.free(this.scratch.dir));
    if (scratch) this.warn(scratch);
    const over = overLimit(total, JUDGE_BYTES_PER_RECORD, this.limitMb);
    if (!over) return;
    this.warn(
      `this history holds about ${countOf(total)} records (from the first ${this.records.toLocaleString('en')} and the share of the file they took); the judge keeps about ${JUDGE_BYTES_PER_RECORD} bytes a record (docs/oracle.md, Memory): about ${sizeOfMb(over.needMb)}, ` +
        `more than it can use of its ${sizeOfMb(this.limitMb)} limit (--judge-memory ${this.limitMb}). It would stop at about ${countOf(over.fits)} and judge no invariant; to judge them, stop now and give it --judge-memory ${over.wantMb}${over.wantMb > machineMemoryMb() ? ' on a machine with that much' : ''}.`,
    );
  }
}

/** A memory size for a message: MB below a gigabyte, then GB (whole from 10 GB). */
function sizeOfMb(mb: number): string {
  if (mb < 1024) return `${Math.round(mb)} MB`;
  return mb >= 10_240 ? `${Math.round(mb / 1024)} GB` : `${(mb / 1024).toFixed(1)} GB`;
}

/** A count of records or requests for a message: in millions from a million on. */
function countOf(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} million` : Math.round(n).toLocaleString('en');
}
