/** A column's numbers: 64-bit, or 32-bit while every value fits exactly (columns of small integers). */
export type NumberColumn = Float64Array | Float32Array;

/**
 * Memory for tables made one after another and let go before the next is made (the rate rules'
 * read-back: ledger.rateTables() loads one key's rows at a time, for each rule): each column of the
 * next table is a view of the same buffer, not a new one. At the end of a 30M-record soak a key's
 * table is about 260 MB; made anew some thirty times, the tables let go waited for the collector
 * beside the one in use. A table made from a pool is valid until the next is made from it
 * (`generation`): reading an older one's columns is an error, never a wrong value.
 */
export class ColumnPool {
  private buffers: (ArrayBuffer | undefined)[] = [];
  generation = 0;

  /** A column of `cap` values for position `column` (32- or 64-bit: each has its buffer). */
  take(column: number, wide: boolean, cap: number): NumberColumn {
    const i = 2 * column + (wide ? 1 : 0);
    const bytes = cap * (wide ? 8 : 4);
    let b = this.buffers[i];
    if (b === undefined || b.byteLength < bytes) this.buffers[i] = b = new ArrayBuffer(bytes);
    return wide ? new Float64Array(b, 0, cap) : new Float32Array(b, 0, cap);
  }

  /** Lets go of the buffers (an interim judgement's end: a run's pass goes on without them). */
  release(): void {
    this.buffers = [];
    this.generation++;
  }
}

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

  /** The pool's generation this table was made in (see ColumnPool). */
  private readonly generation: number;

  /**
   * `capacity`: rows to make room for at once (a table whose length is known: nothing to copy as it
   * fills). `pool`: memory shared with the tables made before and after (see ColumnPool); such a
   * table must be made at its full capacity.
   */
  constructor(
    readonly names: readonly K[],
    narrow: readonly K[] = [],
    capacity = 64,
    private readonly pool?: ColumnPool,
  ) {
    this.cap = Math.max(1, capacity);
    if (pool) this.generation = ++pool.generation;
    else this.generation = 0;
    this.arrays = names.map((n, i) => this.column(i, !narrow.includes(n)));
    this.position = Object.fromEntries(names.map((n, i) => [n, i])) as Record<K, number>;
  }

  /** A new column for position `i`: from the pool when there is one. */
  private column(i: number, wide: boolean): NumberColumn {
    if (this.pool) return this.pool.take(i, wide, this.cap);
    return wide ? new Float64Array(this.cap) : new Float32Array(this.cap);
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
        const wide = this.column(i, true) as Float64Array;
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
      const wide = this.column(i, true) as Float64Array;
      wide.set(a.subarray(0, this.length));
      wide[this.length] = v;
      this.arrays[i] = wide;
    }
  }

  /** Grows by half: a doubling table holds up to twice the rows in use (a quarter more on average). */
  private reserve(force = false): void {
    if (!force && this.length < this.cap) return;
    if (this.pool) throw new Error('a table made from a ColumnPool must be made at its full capacity');
    this.cap = Math.ceil(this.cap * 1.5);
    for (let i = 0; i < this.arrays.length; i++) {
      const old = this.arrays[i];
      const next = old instanceof Float32Array ? new Float32Array(this.cap) : new Float64Array(this.cap);
      next.set(old);
      this.arrays[i] = next;
    }
  }

  col(name: K): NumberColumn {
    if (this.pool && this.generation !== this.pool.generation) throw new Error('a rate table was read after the next one was made from its memory: each must be let go before the next is loaded (ledger.rateTables())');
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
