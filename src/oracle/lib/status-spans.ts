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

export class StatusSpans<S extends string> {
  private readonly n: number;
  private readonly width: number;
  private readonly index: Map<S, number>;
  /** Entity id -> row number in `pool`. */
  private readonly rows = new Map<string, number>();
  /**
   * One pooled table rather than an array per entity: a million small typed arrays would
   * each carry an external buffer the garbage collector has to account for.
   * Row layout: [minEnd x n][minEndSeq x n][maxStart x n][maxStartSeq x n].
   */
  private pool: Float64Array;
  private used = 0;

  constructor(readonly statuses: readonly S[]) {
    this.n = statuses.length;
    this.width = this.n * 4;
    this.index = new Map(statuses.map((s, i) => [s, i]));
    this.pool = new Float64Array(this.width * 1024);
  }

  private rowOf(id: string): number {
    let r = this.rows.get(id);
    if (r !== undefined) return r * this.width;
    r = this.used++;
    if (this.used * this.width > this.pool.length) {
      const next = new Float64Array(this.pool.length * 2);
      next.set(this.pool);
      this.pool = next;
    }
    this.rows.set(id, r);
    const o = r * this.width;
    const n = this.n;
    for (let k = 0; k < n; k++) {
      this.pool[o + k] = Infinity;
      this.pool[o + 2 * n + k] = -Infinity;
    }
    return o;
  }

  add(id: string, status: S, tStart: number, tEnd: number, seq: number): void {
    const i = this.index.get(status);
    if (i === undefined) return;
    const o = this.rowOf(id);
    const p = this.pool;
    const n = this.n;
    if (tEnd < p[o + i]) {
      p[o + i] = tEnd;
      p[o + n + i] = seq;
    }
    if (tStart > p[o + 2 * n + i]) {
      p[o + 2 * n + i] = tStart;
      p[o + 3 * n + i] = seq;
    }
  }

  has(id: string): boolean {
    return this.rows.has(id);
  }
  ids(): IterableIterator<string> {
    return this.rows.keys();
  }
  get size(): number {
    return this.rows.size;
  }

  /** Whether the entity was ever observed in `status`. */
  seen(id: string, status: S): boolean {
    const r = this.rows.get(id);
    const i = this.index.get(status);
    return r !== undefined && i !== undefined && this.pool[r * this.width + i] !== Infinity;
  }

  /** Earliest end of an observation in `status` (Infinity when never seen), with its seq. */
  firstEnd(id: string, status: S): { t: number; seq: number } {
    const r = this.rows.get(id);
    const i = this.index.get(status)!;
    if (r === undefined) return { t: Infinity, seq: -1 };
    const o = r * this.width;
    return { t: this.pool[o + i], seq: this.pool[o + this.n + i] };
  }

  /** Latest start of an observation in `status` (-Infinity when never seen, or only seen at creation). */
  lastStart(id: string, status: S): { t: number; seq: number } {
    const r = this.rows.get(id);
    const i = this.index.get(status)!;
    if (r === undefined) return { t: -Infinity, seq: -1 };
    const o = r * this.width;
    return { t: this.pool[o + 2 * this.n + i], seq: this.pool[o + 3 * this.n + i] };
  }

  /** The earliest-ending observation in any of `statuses` (null when none), with one lookup. */
  earliestEndOf(id: string, statuses: readonly S[]): { status: S; t: number; seq: number } | null {
    const r = this.rows.get(id);
    if (r === undefined) return null;
    const o = r * this.width;
    let best = -1;
    let bestT = Infinity;
    for (const s of statuses) {
      const i = this.index.get(s)!;
      if (this.pool[o + i] < bestT) (bestT = this.pool[o + i]), (best = i);
    }
    return best < 0 ? null : { status: this.statuses[best], t: bestT, seq: this.pool[o + this.n + best] };
  }

  /** Statuses observed for the entity. */
  observed(id: string): S[] {
    const r = this.rows.get(id);
    if (r === undefined) return [];
    const o = r * this.width;
    return this.statuses.filter((_, i) => this.pool[o + i] !== Infinity);
  }

  /** Every pair of distinct statuses where an observation of `from` certainly preceded one of `to`. */
  orderedPairs(id: string): OrderedPair<S>[] {
    const r = this.rows.get(id);
    if (r === undefined) return [];
    const o = r * this.width;
    const p = this.pool;
    const out: OrderedPair<S>[] = [];
    const n = this.n;
    for (let a = 0; a < n; a++) {
      if (p[o + a] === Infinity) continue;
      for (let b = 0; b < n; b++) {
        if (a === b || p[o + 2 * n + b] === -Infinity) continue;
        if (p[o + a] < p[o + 2 * n + b]) {
          out.push({ from: this.statuses[a], to: this.statuses[b], fromSeq: p[o + n + a], fromEnd: p[o + a], toSeq: p[o + 3 * n + b], toStart: p[o + 2 * n + b] });
        }
      }
    }
    return out;
  }
}
