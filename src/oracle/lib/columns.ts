/** A growable table of numbers, one Float64Array per column: compact for a million rows. */
export class Columns<K extends string> {
  length = 0;
  private cap = 64;
  private data: Record<K, Float64Array>;

  constructor(readonly names: readonly K[]) {
    this.data = Object.fromEntries(names.map((n) => [n, new Float64Array(this.cap)])) as Record<K, Float64Array>;
  }

  push(row: Record<K, number>): void {
    this.reserve();
    for (const n of this.names) this.data[n][this.length] = row[n];
    this.length++;
  }

  /** Appends a row given in column order (no row object: for hot paths). */
  pushValues(...values: number[]): void {
    this.reserve();
    for (let i = 0; i < values.length; i++) this.data[this.names[i]][this.length] = values[i];
    this.length++;
  }

  private reserve(): void {
    if (this.length < this.cap) return;
    this.cap *= 2;
    for (const n of this.names) {
      const next = new Float64Array(this.cap);
      next.set(this.data[n]);
      this.data[n] = next;
    }
  }

  col(name: K): Float64Array {
    return this.data[name];
  }

  /** Row indices sorted by a column (ties by insertion order). Rows arrive nearly in order, which TimSort on a plain array makes cheap. */
  order(by: K): Uint32Array {
    const idx: number[] = new Array(this.length);
    for (let i = 0; i < this.length; i++) idx[i] = i;
    const c = this.data[by];
    idx.sort((a, b) => c[a] - c[b] || a - b);
    return Uint32Array.from(idx);
  }
}
