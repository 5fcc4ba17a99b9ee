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
  /** Bumped by clear(): what was computed from the rows before (an order, groups) is stale when it differs. */
  generation = 0;
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

  /**
   * Empties the table and keeps its arrays, to be filled again: one table read back after another
   * (the rate rules' key tables, millions of rows each) then takes the same memory, rather than each
   * a new set of arrays that the collector frees only some time after the next is made.
   */
  clear(): void {
    this.length = 0;
    this.generation++;
  }

  /** Makes room for `rows` rows in all, at once (nothing copied row by row as they are pushed). */
  reserveRows(rows: number): void {
    if (rows <= this.cap) return;
    this.cap = rows;
    for (let i = 0; i < this.arrays.length; i++) {
      const old = this.arrays[i];
      const next = old instanceof Float32Array ? new Float32Array(rows) : new Float64Array(rows);
      next.set(old.subarray(0, this.length));
      this.arrays[i] = next;
    }
  }

  col(name: K): NumberColumn {
    return this.arrays[this.position[name]];
  }

}

/**
 * `rows` sorted in place by `values[row]`, ties by row index: what
 * `[...rows].sort((a, b) => values[a] - values[b] || a - b)` gives, in typed arrays. A rate table's
 * rows number millions, and a plain array of them (with the sort's own copy) set the judge's peak
 * at the end of a soak (docs/oracle.md, Memory). Rows arrive nearly in order, so a sorted run is
 * checked first; otherwise a bottom-up merge sort with one scratch array (`scratch`, at least as
 * long as `rows`, when given).
 */
export function sortRows(rows: Uint32Array, values: ArrayLike<number>, scratch?: Uint32Array): Uint32Array {
  const n = rows.length;
  const before = (a: number, b: number) => values[a] < values[b] || (values[a] === values[b] && a < b);
  for (let k = 0; k < n; k++) {
    // NaN has no place in an order: keep what the comparator sort gave such a column.
    if (Number.isNaN(values[rows[k]])) {
      rows.set(Array.from(rows).sort((a, b) => values[a] - values[b] || a - b));
      return rows;
    }
  }
  let sorted = true;
  for (let k = 1; k < n && sorted; k++) sorted = !before(rows[k], rows[k - 1]);
  if (sorted) return rows;
  // Runs of 32 by insertion, then merges of doubling width between `rows` and `scratch`.
  const RUN = 32;
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(n, lo + RUN);
    for (let k = lo + 1; k < hi; k++) {
      const r = rows[k];
      let j = k - 1;
      while (j >= lo && before(r, rows[j])) {
        rows[j + 1] = rows[j];
        j--;
      }
      rows[j + 1] = r;
    }
  }
  let src: Uint32Array = rows;
  let dst: Uint32Array = scratch ? scratch.subarray(0, n) : new Uint32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let a = lo, b = mid, o = lo;
      // Already in order across the seam: copy the pair as it is.
      if (mid >= hi || !before(src[mid], src[mid - 1])) {
        dst.set(src.subarray(lo, hi), lo);
        continue;
      }
      while (a < mid && b < hi) dst[o++] = before(src[b], src[a]) ? src[b++] : src[a++];
      while (a < mid) dst[o++] = src[a++];
      while (b < hi) dst[o++] = src[b++];
    }
    [src, dst] = [dst, src];
  }
  if (src !== rows) rows.set(src);
  return rows;
}
