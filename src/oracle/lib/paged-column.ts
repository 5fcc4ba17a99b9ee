/**
 * Per-row columns for tables that grow a row at a time and are read by row number: typed arrays in
 * pages of PAGE_ROWS rows, made as rows arrive and never copied (a doubling array would hold up to
 * twice the rows in use, and three times while it grows), and codes for values of which a run has
 * few (key labels, merchants, card outcomes).
 */

/** Rows per page (a shift and a mask, for tables that lay out pages of their own: lib/status-spans.ts). */
export const PAGE_SHIFT = 12;
export const PAGE_ROWS = 1 << PAGE_SHIFT;
export const PAGE_MASK = PAGE_ROWS - 1;

type Page = Float64Array | Uint32Array | Uint8Array;

class PagedColumn<P extends Page> {
  private readonly pages: P[] = [];
  constructor(private readonly make: (rows: number) => P) {}

  get(row: number): number {
    const p = this.pages[row >>> PAGE_SHIFT];
    return p === undefined ? 0 : p[row & PAGE_MASK];
  }

  set(row: number, value: number): void {
    const i = row >>> PAGE_SHIFT;
    while (this.pages.length <= i) this.pages.push(this.make(PAGE_ROWS));
    this.pages[i][row & PAGE_MASK] = value;
  }
}

/** 64-bit numbers by row (0 where never set): times, seqs, amounts, read back exactly as set. */
export class Float64Column extends PagedColumn<Float64Array> {
  constructor() {
    super((n) => new Float64Array(n));
  }
}

/** Unsigned 32-bit integers by row (0 where never set): codes and row numbers. */
export class Uint32Column extends PagedColumn<Uint32Array> {
  constructor() {
    super((n) => new Uint32Array(n));
  }
}

/** Bytes by row (0 where never set): flags. */
export class Uint8Column extends PagedColumn<Uint8Array> {
  constructor() {
    super((n) => new Uint8Array(n));
  }
}

/**
 * Strings as small integers, each distinct one once: code 0 is `undefined`, so a column of codes
 * that was never set reads as undefined. What `valueOf` gives back is the string coded.
 */
export class ValueCodes<V extends string> {
  private readonly codes = new Map<V | undefined, number>([[undefined, 0]]);
  private readonly values: (V | undefined)[] = [undefined];

  codeOf(value: V | undefined): number {
    let c = this.codes.get(value);
    if (c === undefined) {
      c = this.values.length;
      this.codes.set(value, c);
      this.values.push(value);
    }
    return c;
  }

  valueOf(code: number): V | undefined {
    return this.values[code];
  }
}

/** References by row (undefined where never set): strings and the odd object, in pages, never copied as they grow. */
export class RefColumn<T> {
  private readonly pages: (T | undefined)[][] = [];

  get(row: number): T | undefined {
    const p = this.pages[row >>> PAGE_SHIFT];
    return p === undefined ? undefined : p[row & PAGE_MASK];
  }

  set(row: number, value: T | undefined): void {
    const i = row >>> PAGE_SHIFT;
    while (this.pages.length <= i) this.pages.push(new Array<T | undefined>(PAGE_ROWS).fill(undefined));
    this.pages[i][row & PAGE_MASK] = value;
  }
}
