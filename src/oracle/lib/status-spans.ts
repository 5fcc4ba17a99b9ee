/**
 * Order-independent record of the statuses observed for many entities. An
 * observation is known only to have happened somewhere in [tStart, tEnd] (the
 * server answered in between), so "a before b" is certain only when a ended
 * before b started. Keeping, per status, the earliest end and the latest start
 * answers every such question exactly: some observation in s1 certainly
 * preceded some observation in s2 iff minEnd[s1] < maxStart[s2].
 */
import { PaymentRows } from './payment-rows.ts';
import { Float64Column, Uint32Column, Uint8Column } from './paged-column.ts';

export interface OrderedPair<S extends string> {
  from: S;
  to: S;
  fromSeq: number;
  fromEnd: number;
  toSeq: number;
  toStart: number;
}

/** Status slots a row holds: more than most entities ever show (a payment two or three of seven). */
const SLOTS = 4;
/** The first slot byte of a row kept whole, every status in place, in `wide`. */
const WIDE = 255;

export class StatusSpans<S extends string> {
  private readonly n: number;
  /** Slots per row: SLOTS, or fewer when there are fewer statuses. */
  private readonly k: number;
  private readonly width: number;
  private readonly index: Map<S, number>;
  /**
   * Entity id -> row number: the table's own, or one shared with other tables of the same
   * entities (the ledger's payments), whose rows it may never be given a status for.
   */
  private readonly rows: PaymentRows;
  /** 1 for a row some status was added for: only those are entities this table has seen. */
  private readonly present = new Uint8Column();
  private count = 0;
  /**
   * One pooled table rather than an array per entity (a million small typed arrays would each
   * carry an external buffer the garbage collector has to account for): paged columns of several
   * values a row, whose old pages wait in a scratch file (lib/paged-column.ts).
   * A row has k slots, each given to a status when it is first added (`slots`: its index plus
   * one, 0 while free), not a place for every status: 100 bytes a row, not 168 for a payment's
   * seven. Times: [minEnd x k][maxStart x k]; their seqs, in a column of their own: [minEndSeq x k][maxStartSeq x k],
   * 32-bit while every seq fits (a history of fewer than 4 billion records), else 64-bit.
   * A row that needs more than k statuses is kept whole in `wide` from then on.
   */
  private readonly times: Float64Column;
  private seqs: Uint32Column | Float64Column;
  private readonly slots: Uint8Column;
  /** Rows with more statuses than slots: times [minEnd x n][maxStart x n] and their seqs, 64-bit. */
  private readonly wide = new Map<number, { t: Float64Array; s: Float64Array }>();

  /** `rows`: a row index shared with other tables (rows this table never saw cost it their page space only). */
  constructor(
    readonly statuses: readonly S[],
    rows?: PaymentRows,
  ) {
    this.rows = rows ?? new PaymentRows();
    this.n = statuses.length;
    this.k = Math.min(this.n, SLOTS);
    this.width = this.k * 2;
    this.index = new Map(statuses.map((s, i) => [s, i]));
    this.times = new Float64Column(this.width);
    this.seqs = new Uint32Column(this.width);
    this.slots = new Uint8Column(this.k);
  }

  /** Row `r`'s times (from `offset(r)`); with `write`, to set some. */
  private page(r: number, write = false): Float64Array {
    return this.times.pageOf(r, write);
  }

  private seqPage(r: number, write = false): Uint32Array | Float64Array {
    return this.seqs.pageOf(r, write);
  }

  private offset(r: number): number {
    return this.times.at(r);
  }

  private rowOf(id: string): number {
    const r = this.rows.rowOf(id);
    if (this.present.get(r) === 1) return r;
    // Fresh pages are zeros: every slot free.
    this.present.set(r, 1);
    this.count++;
    return r;
  }

  /** Seqs are kept in 64 bits from the first that a 32-bit page would not give back. */
  private wideSeqs = false;
  private setSeq(r: number, at: number, seq: number): void {
    if (!this.wideSeqs && !(seq >= 0 && seq <= 0xffffffff && Number.isInteger(seq))) {
      this.wideSeqs = true;
      const narrow = this.seqs;
      const wide = new Float64Column(this.width);
      for (let i = 0; i < narrow.pageCount; i++) {
        const row = i * narrow.pageRows;
        wide.pageOf(row, true).set(narrow.pageOf(row, false));
      }
      this.seqs = wide;
    }
    this.seqPage(r, true)[at] = seq;
  }

  /**
   * The slot of status `i` in row `r`: 0..k-1, -1 when it has none, -2 when the row is wide. With
   * `give`, a status without one takes the next free slot, and the row goes wide when none is free.
   */
  private slotOf(r: number, i: number, give = false): number {
    const sp = this.slots.pageOf(r, give);
    const so = this.slots.at(r);
    if (sp[so] === WIDE) return -2;
    for (let j = 0; j < this.k; j++) {
      const v = sp[so + j];
      if (v === i + 1) return j;
      // Slots are given in order: a free one ends the search.
      if (v !== 0) continue;
      if (!give) return -1;
      sp[so + j] = i + 1;
      const p = this.page(r, true);
      const o = this.offset(r);
      p[o + j] = Infinity;
      p[o + this.k + j] = -Infinity;
      return j;
    }
    if (!give) return -1;
    this.widen(r);
    return -2;
  }

  /** Moves row `r` out of its slots into a whole row of `wide`, every status in place. */
  private widen(r: number): void {
    const { n, k } = this;
    const t = new Float64Array(2 * n);
    t.fill(Infinity, 0, n);
    t.fill(-Infinity, n);
    const s = new Float64Array(2 * n);
    const sp = this.slots.pageOf(r, true);
    const so = this.slots.at(r);
    const p = this.page(r);
    const q = this.seqPage(r);
    const o = this.offset(r);
    for (let j = 0; j < k; j++) {
      const i = sp[so + j] - 1;
      t[i] = p[o + j];
      t[n + i] = p[o + k + j];
      s[i] = q[o + j];
      s[n + i] = q[o + k + j];
    }
    sp[so] = WIDE;
    this.wide.set(r, { t, s });
  }

  add(id: string, status: S, tStart: number, tEnd: number, seq: number): void {
    const i = this.index.get(status);
    if (i === undefined) return;
    const r = this.rowOf(id);
    const j = this.slotOf(r, i, true);
    if (j === -2) {
      const w = this.wide.get(r)!;
      const n = this.n;
      if (tEnd < w.t[i]) (w.t[i] = tEnd), (w.s[i] = seq);
      if (tStart > w.t[n + i]) (w.t[n + i] = tStart), (w.s[n + i] = seq);
      return;
    }
    const p = this.page(r, true);
    const o = this.offset(r);
    const k = this.k;
    if (tEnd < p[o + j]) {
      p[o + j] = tEnd;
      this.setSeq(r, o + j, seq);
    }
    if (tStart > p[o + k + j]) {
      p[o + k + j] = tStart;
      this.setSeq(r, o + k + j, seq);
    }
  }

  /** Earliest end of status `i` in row `r` (Infinity when never seen). */
  private minEnd(r: number, i: number): number {
    const j = this.slotOf(r, i);
    if (j >= 0) return this.page(r)[this.offset(r) + j];
    return j === -2 ? this.wide.get(r)!.t[i] : Infinity;
  }
  /** Latest start of status `i` in row `r` (-Infinity when never seen, or only at creation). */
  private maxStart(r: number, i: number): number {
    const j = this.slotOf(r, i);
    if (j >= 0) return this.page(r)[this.offset(r) + this.k + j];
    return j === -2 ? this.wide.get(r)!.t[this.n + i] : -Infinity;
  }
  /** The seq of minEnd (0 when never seen). */
  private minEndSeq(r: number, i: number): number {
    const j = this.slotOf(r, i);
    if (j >= 0) return this.seqPage(r)[this.offset(r) + j];
    return j === -2 ? this.wide.get(r)!.s[i] : 0;
  }
  /** The seq of maxStart (0 when never seen). */
  private maxStartSeq(r: number, i: number): number {
    const j = this.slotOf(r, i);
    if (j >= 0) return this.seqPage(r)[this.offset(r) + this.k + j];
    return j === -2 ? this.wide.get(r)!.s[this.n + i] : 0;
  }

  /** The entity's row if some status was added for it. */
  private find(id: string): number | undefined {
    const r = this.rows.find(id);
    return r !== undefined && this.present.get(r) === 1 ? r : undefined;
  }

  has(id: string): boolean {
    return this.find(id) !== undefined;
  }
  /** The entities seen, in the order their rows were given. */
  *ids(): IterableIterator<string> {
    for (let r = 0; r < this.rows.size; r++) if (this.present.get(r) === 1) yield this.rows.idAt(r);
  }
  get size(): number {
    return this.count;
  }

  /** Whether the entity was ever observed in `status`. */
  seen(id: string, status: S): boolean {
    const r = this.find(id);
    const i = this.index.get(status);
    return r !== undefined && i !== undefined && this.minEnd(r, i) !== Infinity;
  }

  /** Earliest end of an observation in `status` (Infinity when never seen), with its seq. */
  firstEnd(id: string, status: S): { t: number; seq: number } {
    const r = this.find(id);
    const i = this.index.get(status)!;
    if (r === undefined) return { t: Infinity, seq: -1 };
    return { t: this.minEnd(r, i), seq: this.minEndSeq(r, i) };
  }

  /** Latest start of an observation in `status` (-Infinity when never seen, or only seen at creation). */
  lastStart(id: string, status: S): { t: number; seq: number } {
    const r = this.find(id);
    const i = this.index.get(status)!;
    if (r === undefined) return { t: -Infinity, seq: -1 };
    return { t: this.maxStart(r, i), seq: this.maxStartSeq(r, i) };
  }

  /** The earliest-ending observation in any of `statuses` (null when none), with one lookup. */
  earliestEndOf(id: string, statuses: readonly S[]): { status: S; t: number; seq: number } | null {
    const r = this.find(id);
    return r === undefined ? null : this.earliestEndAt(r, statuses);
  }

  /** earliestEndOf by the entity's row in the shared index (null when no status was added for it). */
  earliestEndAtRow(r: number, statuses: readonly S[]): { status: S; t: number; seq: number } | null {
    return this.present.get(r) === 1 ? this.earliestEndAt(r, statuses) : null;
  }

  private earliestEndAt(r: number, statuses: readonly S[]): { status: S; t: number; seq: number } | null {
    let best = -1;
    let bestT = Infinity;
    for (const s of statuses) {
      const i = this.index.get(s)!;
      const t = this.minEnd(r, i);
      if (t < bestT) (bestT = t), (best = i);
    }
    return best < 0 ? null : { status: this.statuses[best], t: bestT, seq: this.minEndSeq(r, best) };
  }

  /** Statuses observed for the entity. */
  observed(id: string): S[] {
    const r = this.find(id);
    if (r === undefined) return [];
    return this.statuses.filter((_, i) => this.minEnd(r, i) !== Infinity);
  }

  /** Every pair of distinct statuses where an observation of `from` certainly preceded one of `to`. */
  orderedPairs(id: string): OrderedPair<S>[] {
    const r = this.find(id);
    if (r === undefined) return [];
    const n = this.n;
    const ends = this.statuses.map((_, i) => this.minEnd(r, i));
    const starts = this.statuses.map((_, i) => this.maxStart(r, i));
    const out: OrderedPair<S>[] = [];
    for (let a = 0; a < n; a++) {
      if (ends[a] === Infinity) continue;
      for (let b = 0; b < n; b++) {
        if (a === b || starts[b] === -Infinity) continue;
        if (ends[a] < starts[b]) {
          out.push({ from: this.statuses[a], to: this.statuses[b], fromSeq: this.minEndSeq(r, a), fromEnd: ends[a], toSeq: this.maxStartSeq(r, b), toStart: starts[b] });
        }
      }
    }
    return out;
  }
}
