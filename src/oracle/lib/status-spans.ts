/**
 * Order-independent record of the statuses observed for many entities. An
 * observation is known only to have happened somewhere in [tStart, tEnd] (the
 * server answered in between), so "a before b" is certain only when a ended
 * before b started. Keeping, per status, the earliest end and the latest start
 * answers every such question exactly: some observation in s1 certainly
 * preceded some observation in s2 iff minEnd[s1] < maxStart[s2].
 */
export interface OrderedPair<S extends string> {
  from: S;
  to: S;
  fromSeq: number;
  fromEnd: number;
  toSeq: number;
  toStart: number;
}

import { PaymentRows } from './payment-rows.ts';
import { Uint8Column } from './paged-column.ts';

/** Rows per page of the pooled table: pages are never copied or over-allocated by more than one page. */
const PAGE_SHIFT = 12;
const PAGE_ROWS = 1 << PAGE_SHIFT;
const PAGE_MASK = PAGE_ROWS - 1;

export class StatusSpans<S extends string> {
  private readonly n: number;
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
   * carry an external buffer the garbage collector has to account for), in pages of PAGE_ROWS
   * rows: a doubling array would hold up to twice the rows in use, and three times while it grows.
   * Times: [minEnd x n][maxStart x n]; their seqs, in pages of their own: [minEndSeq x n][maxStartSeq x n],
   * 32-bit while every seq fits (a history of fewer than 4 billion records), else 64-bit.
   */
  private readonly pages: Float64Array[] = [];
  private readonly seqPages: (Uint32Array | Float64Array)[] = [];

  /** `rows`: a row index shared with other tables (rows this table never saw cost it their page space only). */
  constructor(
    readonly statuses: readonly S[],
    rows?: PaymentRows,
  ) {
    this.rows = rows ?? new PaymentRows();
    this.n = statuses.length;
    this.width = this.n * 2;
    this.index = new Map(statuses.map((s, i) => [s, i]));
  }

  private page(r: number): Float64Array {
    return this.pages[r >>> PAGE_SHIFT];
  }

  private seqPage(r: number): Uint32Array | Float64Array {
    return this.seqPages[r >>> PAGE_SHIFT];
  }

  private offset(r: number): number {
    return (r & PAGE_MASK) * this.width;
  }

  private rowOf(id: string): number {
    const r = this.rows.rowOf(id);
    if (this.present.get(r) === 1) return r;
    while (r >>> PAGE_SHIFT >= this.pages.length) {
      this.pages.push(new Float64Array(this.width * PAGE_ROWS));
      this.seqPages.push(this.wideSeqs ? new Float64Array(this.width * PAGE_ROWS) : new Uint32Array(this.width * PAGE_ROWS));
    }
    this.present.set(r, 1);
    this.count++;
    const p = this.page(r);
    const o = this.offset(r);
    const n = this.n;
    for (let k = 0; k < n; k++) {
      p[o + k] = Infinity;
      p[o + n + k] = -Infinity;
    }
    return r;
  }

  /** Seqs are kept in 64 bits from the first that a 32-bit page would not give back. */
  private wideSeqs = false;
  private setSeq(r: number, at: number, seq: number): void {
    if (!this.wideSeqs && !(seq >= 0 && seq <= 0xffffffff && Number.isInteger(seq))) {
      this.wideSeqs = true;
      for (let i = 0; i < this.seqPages.length; i++) this.seqPages[i] = Float64Array.from(this.seqPages[i]);
    }
    this.seqPage(r)[at] = seq;
  }

  add(id: string, status: S, tStart: number, tEnd: number, seq: number): void {
    const i = this.index.get(status);
    if (i === undefined) return;
    const r = this.rowOf(id);
    const p = this.page(r);
    const o = this.offset(r);
    const n = this.n;
    if (tEnd < p[o + i]) {
      p[o + i] = tEnd;
      this.setSeq(r, o + i, seq);
    }
    if (tStart > p[o + n + i]) {
      p[o + n + i] = tStart;
      this.setSeq(r, o + n + i, seq);
    }
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
    return r !== undefined && i !== undefined && this.page(r)[this.offset(r) + i] !== Infinity;
  }

  /** Earliest end of an observation in `status` (Infinity when never seen), with its seq. */
  firstEnd(id: string, status: S): { t: number; seq: number } {
    const r = this.find(id);
    const i = this.index.get(status)!;
    if (r === undefined) return { t: Infinity, seq: -1 };
    const o = this.offset(r);
    return { t: this.page(r)[o + i], seq: this.seqPage(r)[o + i] };
  }

  /** Latest start of an observation in `status` (-Infinity when never seen, or only seen at creation). */
  lastStart(id: string, status: S): { t: number; seq: number } {
    const r = this.find(id);
    const i = this.index.get(status)!;
    if (r === undefined) return { t: -Infinity, seq: -1 };
    const o = this.offset(r);
    return { t: this.page(r)[o + this.n + i], seq: this.seqPage(r)[o + this.n + i] };
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
    const p = this.page(r);
    const o = this.offset(r);
    let best = -1;
    let bestT = Infinity;
    for (const s of statuses) {
      const i = this.index.get(s)!;
      if (p[o + i] < bestT) (bestT = p[o + i]), (best = i);
    }
    return best < 0 ? null : { status: this.statuses[best], t: bestT, seq: this.seqPage(r)[o + best] };
  }

  /** Statuses observed for the entity. */
  observed(id: string): S[] {
    const r = this.find(id);
    if (r === undefined) return [];
    const p = this.page(r);
    const o = this.offset(r);
    return this.statuses.filter((_, i) => p[o + i] !== Infinity);
  }

  /** Every pair of distinct statuses where an observation of `from` certainly preceded one of `to`. */
  orderedPairs(id: string): OrderedPair<S>[] {
    const r = this.find(id);
    if (r === undefined) return [];
    const p = this.page(r);
    const q = this.seqPage(r);
    const o = this.offset(r);
    const out: OrderedPair<S>[] = [];
    const n = this.n;
    for (let a = 0; a < n; a++) {
      if (p[o + a] === Infinity) continue;
      for (let b = 0; b < n; b++) {
        if (a === b || p[o + n + b] === -Infinity) continue;
        if (p[o + a] < p[o + n + b]) {
          out.push({ from: this.statuses[a], to: this.statuses[b], fromSeq: q[o + a], fromEnd: p[o + a], toSeq: q[o + n + b], toStart: p[o + n + b] });
        }
      }
    }
    return out;
  }
}
