/** A column's numbers: 64-bit, or 32-bit while every value fits exactly (columns of small integers). */
export type NumberColumn = Float64Array | Float32Array;

/**
 * A growable table of numbers, one typed array per column: compact for a million rows. Columns
 * named `narrow` hold 32-bit floats while every value pushed fits one exactly (status codes, header
 * counts, NaN for absent) and become 64-bit for good at the first that does not, so what is read
 * back is always what was pushed.
 */
export class Columns<K extends string> {
  length = 0;
  private cap = 64;
  /** The columns in `names` order: pushes index them by position, not by name (a keyed lookup per value). */
  private readonly arrays: NumberColumn[];
  /** Column name -> position in `arrays`. */
  private readonly position: Record<K, number>;

  /** `capacity`: rows to make room for at once (a table whose length is known: nothing to copy as it fills). */
  constructor(readonly names: readonly K[], narrow: readonly K[] = [], capacity = 64) {
    this.cap = Math.max(1, capacity);
    this.arrays = names.map((n) => (narrow.includes(n) ? new Float32Array(this.cap) : new Float64Array(this.cap)));
    this.position = Object.fromEntries(names.map((n, i) => [n, i])) as Record<K, number>;
  }

  push(row: Record<K, number>): void {
    this.reserve();
    for (let i = 0; i < this.names.length; i++) this.set(i, row[this.names[i]]);
    this.length++;
  }

  /** Appends a row given in column order (no row object: for hot paths). */
  pushValues(...values: number[]): void {
    this.reserve();
    for (let i = 0; i < values.length; i++) this.set(i, values[i]);
    this.length++;
  }

  /** Appends `n` rows given as one array per column, in `names` order (a table read back from disk). */
  pushChunk(cols: readonly ArrayLike<number>[], n: number): void {
    while (this.cap < this.length + n) this.reserve(true);
    const at = this.length;
    for (let i = 0; i < cols.length; i++) {
      const a = this.arrays[i];
      const c = cols[i];
      if (a instanceof Float64Array) {
        for (let r = 0; r < n; r++) a[at + r] = c[r];
        continue;
      }
      // A narrow column takes the values while each fits 32 bits exactly, then widens (as set() does).
      let r = 0;
      for (; r < n; r++) {
        const v = c[r];
        a[at + r] = v;
        if (a[at + r] !== v && v === v) break;
      }
      if (r < n) {
        const wide = new Float64Array(this.cap);
        wide.set(a.subarray(0, at + r));
        for (; r < n; r++) wide[at + r] = c[r];
        this.arrays[i] = wide;
      }
    }
    this.length += n;
  }

  private set(i: number, v: number): void {
    const a = this.arrays[i];
    a[this.length] = v;
    // A 32-bit column keeps v only when it reads back the same (NaN reads back NaN).
    if (a instanceof Float32Array && a[this.length] !== v && !Number.isNaN(v)) {
      const wide = new Float64Array(this.cap);
      wide.set(a);
      wide[this.length] = v;
      this.arrays[i] = wide;
    }
  }

  /** Grows by half: a doubling table holds up to twice the rows in use (a quarter more on average). */
  private reserve(force = false): void {
    if (!force && this.length < this.cap) return;
    this.cap = Math.ceil(this.cap * 1.5);
    for (let i = 0; i < this.arrays.length; i++) {
      const old = this.arrays[i];
      const next = old instanceof Float32Array ? new Float32Array(this.cap) : new Float64Array(this.cap);
      next.set(old);
      this.arrays[i] = next;
    }
  }

  col(name: K): NumberColumn {
    return this.arrays[this.position[name]];
  }

  /** Row indices sorted by a column (ties by insertion order). Rows arrive nearly in order, which TimSort on a plain array makes cheap. */
  order(by: K): Uint32Array {
    const idx: number[] = new Array(this.length);
    for (let i = 0; i < this.length; i++) idx[i] = i;
    const c = this.col(by);
    idx.sort((a, b) => c[a] - c[b] || a - b);
    return Uint32Array.from(idx);
  }
}
