/**
 * The order a k6 file's exchanges are judged in (by start, then end, then the file's order),
 * found while the file is read. k6 writes an exchange's record when the exchange ends, so
 * records come roughly by end: one is handed on once an exchange read since ended `windowMs`
 * after its start, since no exchange still to come is expected to start before it. One that
 * does (an exchange longer than the window) breaks the order: `broken` says so, and the reader
 * falls back to sorting the whole file.
 */
export class StartOrderWindow {
  /** Indices waiting, as a binary heap by (start, end, index). */
  private readonly heap: number[] = [];
  private latestEnd = -Infinity;
  private lastStart = -Infinity;
  private lastEnd = -Infinity;
  /** Why the order broke (null: it holds). */
  broken: string | null = null;

  constructor(
    private readonly tStarts: readonly number[],
    private readonly tEnds: readonly number[],
    private readonly windowMs: number,
    private readonly release: (index: number) => void,
  ) {}

  /** Exchange `index` was read (its start and end are in the arrays); hands on every exchange now safe. */
  add(index: number): void {
    if (this.broken !== null) return;
    const s = this.tStarts[index];
    const e = this.tEnds[index];
    if (!Number.isFinite(s) || !Number.isFinite(e)) {
      this.broken = `an exchange record without a finite start and end (line order unknown)`;
      return;
    }
    if (s < this.lastStart || (s === this.lastStart && e < this.lastEnd)) {
      this.broken = `an exchange that started ${(this.lastStart - s).toFixed(0)} ms before one already handed on was read after it (an exchange longer than the ${this.windowMs} ms window)`;
      return;
    }
    this.push(index);
    if (e > this.latestEnd) this.latestEnd = e;
    const until = this.latestEnd - this.windowMs;
    while (this.heap.length && this.tStarts[this.heap[0]] < until) this.handOn(this.pop());
  }

  /** The file ended: hands on every exchange still waiting. */
  drain(): void {
    while (this.broken === null && this.heap.length) this.handOn(this.pop());
  }

  private handOn(index: number): void {
    this.lastStart = this.tStarts[index];
    this.lastEnd = this.tEnds[index];
    this.release(index);
  }

  private before(a: number, b: number): boolean {
    const sa = this.tStarts[a];
    const sb = this.tStarts[b];
    if (sa !== sb) return sa < sb;
    const ea = this.tEnds[a];
    const eb = this.tEnds[b];
    return ea !== eb ? ea < eb : a < b;
  }

  // Sift up and down with a hole (the moving index written once where it stops, not swapped at
  // every level): a window holds tens of thousands of exchanges, and every record passes through.
  private push(index: number): void {
    const h = this.heap;
    let i = h.push(index) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(index, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = index;
  }

  private pop(): number {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    const n = h.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const m = r < n && this.before(h[r], h[l]) ? r : l;
        if (!this.before(h[m], last)) break;
        h[i] = h[m];
        i = m;
      }
      h[i] = last;
    }
    return top;
  }
}
