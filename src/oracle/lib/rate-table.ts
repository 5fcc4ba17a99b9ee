/**
 * One key's rate-limit samples (ledger.rate): a row per authenticated API answer, kept on disk but
 * for the last chunk (lib/spill.ts), since a soak makes tens of millions. The rate rules judge
 * them at the end, when the server-clock estimate is final: `load()` gives one key's rows as one
 * table then, and the judge lets it go before the next key's.
 */
import { Columns } from './columns.ts';
import { SpillColumns, spillSettings } from './spill.ts';

/** One row per authenticated API answer (and per request that got none): NaN where a header was absent. */
export const RATE_COLUMNS = ['seq', 'tStart', 'tEnd', 'status', 'limit', 'remaining', 'reset', 'retryAfter'] as const;
export type RateColumn = (typeof RATE_COLUMNS)[number];
/** Rate columns of integers below 2^24 (seqs of most histories, a status, header counts, seconds to wait): 32-bit while they fit (lib/columns.ts). */
const NARROW_RATE_COLUMNS: readonly RateColumn[] = ['seq', 'status', 'limit', 'remaining', 'retryAfter'];

const SEQ = RATE_COLUMNS.indexOf('seq');
const LIMIT = RATE_COLUMNS.indexOf('limit');
const REMAINING = RATE_COLUMNS.indexOf('remaining');
const RESET = RATE_COLUMNS.indexOf('reset');

export class RateTable {
  /** A quarter of the usual chunk's rows: eight columns, not two, so a key's chunk in memory is 1 MB at most. */
  private readonly rows = new SpillColumns(RATE_COLUMNS, Math.max(1, Math.floor(spillSettings.chunkRows / 4)));
  /** Per chunk (as the rows are chunked on disk): its smallest and largest seq, and whether its seqs rise row by row. */
  private readonly minSeq: number[] = [];
  private readonly maxSeq: number[] = [];
  private readonly rising: boolean[] = [];
  /** Whether every chunk's seqs lie above the previous chunk's (rows arrive in seq order): one chunk can hold a seq. */
  private ordered = true;

  get length(): number {
    return this.rows.length;
  }

  /** Appends a row, in RATE_COLUMNS order. */
  push(seq: number, tStart: number, tEnd: number, status: number, limit: number, remaining: number, reset: number, retryAfter: number): void {
    const k = Math.floor(this.rows.length / this.rows.chunkRows);
    if (k === this.minSeq.length) {
      this.minSeq.push(seq);
      this.maxSeq.push(seq);
      this.rising.push(true);
    } else {
      if (seq <= this.maxSeq[k]) this.rising[k] = false;
      if (seq < this.minSeq[k]) this.minSeq[k] = seq;
      if (seq > this.maxSeq[k]) this.maxSeq[k] = seq;
    }
    if (k > 0 && this.minSeq[k] <= this.maxSeq[k - 1]) this.ordered = false;
    this.rows.pushValues(seq, tStart, tEnd, status, limit, remaining, reset, retryAfter);
  }

  /**
   * X-RateLimit-Limit, -Remaining and -Reset of the row holding `seq` (a record has one row at
   * most), or null: the idempotent-replay check asks for an earlier answer's headers. A few reads
   * of the scratch file when the row is no longer in memory.
   */
  headersOfSeq(seq: number): [limit: number, remaining: number, reset: number] | null {
    const rows = this.rows;
    const n = rows.chunkRows;
    let last = this.minSeq.length - 1;
    let first = 0;
    if (this.ordered) {
      // The one chunk whose range can hold it: the last that starts at or below it.
      let lo = 0, hi = this.minSeq.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.minSeq[mid] <= seq) lo = mid + 1;
        else hi = mid;
      }
      last = first = lo - 1;
    }
    for (let k = last; k >= first && k >= 0; k--) {
      if (seq < this.minSeq[k] || seq > this.maxSeq[k]) continue;
      const from = k * n;
      const to = Math.min(rows.length, from + n);
      let row = -1;
      if (this.rising[k]) {
        let lo = from, hi = to;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (rows.valueAt(mid, SEQ) < seq) lo = mid + 1;
          else hi = mid;
        }
        if (lo < to && rows.valueAt(lo, SEQ) === seq) row = lo;
      } else {
        const seqs = rows.columnOfChunk(k, SEQ);
        for (let i = to - from - 1; i >= 0 && row < 0; i--) if (seqs[i] === seq) row = from + i;
      }
      if (row >= 0) return [rows.valueAt(row, LIMIT), rows.valueAt(row, REMAINING), rows.valueAt(row, RESET)];
    }
    return null;
  }

  /**
   * Every row in push order, as one table in memory: `into` emptied and filled again (its arrays
   * reused, made larger only when this key has more rows), or a new table.
   */
  load(into?: Columns<RateColumn>): Columns<RateColumn> {
    const out = into ?? new Columns(RATE_COLUMNS, NARROW_RATE_COLUMNS, this.rows.length);
    out.clear();
    out.reserveRows(this.rows.length);
    for (const { cols, n } of this.rows.chunks()) out.pushChunk(cols, n);
    return out;
  }

  /** An empty table of this shape with room for `rows` rows, to load() keys into one after another. */
  static emptyTable(rows: number): Columns<RateColumn> {
    return new Columns(RATE_COLUMNS, NARROW_RATE_COLUMNS, rows);
  }
}
