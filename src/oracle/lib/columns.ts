/** A growable table of numbers, one Float64Array per column: compact for a million rows. */
export class Columns<K extends string> {
  length = 0;
  private cap = 64;
  /** The columns in `names` order: pushes index them by position, not by name (a keyed lookup per value). */
  private readonly arrays: Float64Array[];
  /** Column name -> position in `arrays`. */
  private readonly position: Record<K, number>;

  constructor(readonly names: readonly K[]) {
    this.arrays = names.map(() => new Float64Array(this.cap));
    this.position = Object.fromEntries(names.map((n, i) => [n, i])) as Record<K, number>;
  }

  push(row: Record<K, number>): void {
    this.reserve();
    for (let i = 0; i < this.names.length; i++) this.arrays[i][this.length] = row[this.names[i]];
    this.length++;
  }

  /** Appends a row given in column order (no row object: for hot paths). */
  pushValues(...values: number[]): void {
    this.reserve();
    for (let i = 0; i < values.length; i++) this.arrays[i][this.length] = values[i];
    this.length++;
  }

  private reserve(): void {
    if (this.length < this.cap) return;
    this.cap *= 2;
    for (let i = 0; i < this.arrays.length; i++) {
      const next = new Float64Array(this.cap);
      next.set(this.arrays[i]);
      this.arrays[i] = next;
    }
  }

  col(name: K): Float64Array {
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
