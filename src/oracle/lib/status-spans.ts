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
  private readonly index: Map<S, number>;
  private readonly table = new Map<string, Float64Array>();

  constructor(readonly statuses: readonly S[]) {
    this.n = statuses.length;
    this.index = new Map(statuses.map((s, i) => [s, i]));
  }

  add(id: string, status: S, tStart: number, tEnd: number, seq: number): void {
    const i = this.index.get(status);
    if (i === undefined) return;
    let row = this.table.get(id);
    if (!row) {
      row = new Float64Array(this.n * 4);
      for (let k = 0; k < this.n; k++) {
        row[k] = Infinity;
        row[2 * this.n + k] = -Infinity;
      }
      this.table.set(id, row);
    }
    if (tEnd < row[i]) {
      row[i] = tEnd;
      row[this.n + i] = seq;
    }
    if (tStart > row[2 * this.n + i]) {
      row[2 * this.n + i] = tStart;
      row[3 * this.n + i] = seq;
    }
  }

  has(id: string): boolean {
    return this.table.has(id);
  }
  ids(): IterableIterator<string> {
    return this.table.keys();
  }
  get size(): number {
    return this.table.size;
  }

  /** Whether the entity was ever observed in `status`. */
  seen(id: string, status: S): boolean {
    const row = this.table.get(id);
    const i = this.index.get(status);
    return !!row && i !== undefined && row[i] !== Infinity;
  }

  /** Earliest end of an observation in `status` (Infinity when never seen), with its seq. */
  firstEnd(id: string, status: S): { t: number; seq: number } {
    const row = this.table.get(id);
    const i = this.index.get(status)!;
    return row ? { t: row[i], seq: row[this.n + i] } : { t: Infinity, seq: -1 };
  }

  /** Latest start of an observation in `status` (-Infinity when never seen, or only seen at creation). */
  lastStart(id: string, status: S): { t: number; seq: number } {
    const row = this.table.get(id);
    const i = this.index.get(status)!;
    return row ? { t: row[2 * this.n + i], seq: row[3 * this.n + i] } : { t: -Infinity, seq: -1 };
  }

  /** Statuses observed for the entity. */
  observed(id: string): S[] {
    const row = this.table.get(id);
    if (!row) return [];
    return this.statuses.filter((_, i) => row[i] !== Infinity);
  }

  /** Every pair of distinct statuses where an observation of `from` certainly preceded one of `to`. */
  orderedPairs(id: string): OrderedPair<S>[] {
    const row = this.table.get(id);
    if (!row) return [];
    const out: OrderedPair<S>[] = [];
    const n = this.n;
    for (let a = 0; a < n; a++) {
      if (row[a] === Infinity) continue;
      for (let b = 0; b < n; b++) {
        if (a === b || row[2 * n + b] === -Infinity) continue;
        if (row[a] < row[2 * n + b]) {
          out.push({ from: this.statuses[a], to: this.statuses[b], fromSeq: row[n + a], fromEnd: row[a], toSeq: row[3 * n + b], toStart: row[2 * n + b] });
        }
      }
    }
    return out;
  }
}
