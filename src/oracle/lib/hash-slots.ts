/**
 * An open-addressed table of numbers for indexes from a string to a row (lib/payment-rows.ts,
 * lib/idem-tuples.ts): a slot holds a row and the string's 32-bit hash, 8 bytes, at most three
 * quarters full (11 to 21 bytes a string; half full took 16 to 32, and a probe for a string not
 * there reads a few more slots now, all of them numbers), where a Map keyed by the strings would
 * hold each string too. The caller keeps the strings
 * (in a paged column) and confirms a slot whose hash matches; growing places every row again by its
 * kept hash, without reading a string.
 *
 * Probing: `for (let i = t.first(h); t.rowPlus1(i) !== 0; i = t.next(i))`, with `t.hashAt(i)`.
 */
export class HashSlots {
  /** Slot pairs [row + 1 (0: free), hash]. */
  private slots = new Uint32Array(2 * 1024);
  private mask = 1023;
  private count = 0;

  /** Adds `row` under hash `h`. */
  add(row: number, h: number): void {
    if (4 * ++this.count > 3 * (this.mask + 1)) this.grow();
    this.place(row, h);
  }

  /** The first slot to look in for hash `h`. */
  first(h: number): number {
    return h & this.mask;
  }

  /** The slot after `i`. */
  next(i: number): number {
    return (i + 1) & this.mask;
  }

  /** Slot `i`'s row plus one; 0 when free (the end of a probe). */
  rowPlus1(i: number): number {
    return this.slots[2 * i];
  }

  hashAt(i: number): number {
    return this.slots[2 * i + 1];
  }

  private place(row: number, h: number): void {
    const slots = this.slots;
    let i = h & this.mask;
    while (slots[2 * i] !== 0) i = (i + 1) & this.mask;
    slots[2 * i] = row + 1;
    slots[2 * i + 1] = h;
  }

  /** Doubles the table, placing every row again by its kept hash. */
  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(2 * old.length);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0) this.place(old[i] - 1, old[i + 1]);
  }
}

/** 32-bit FNV-1a of the string's UTF-16 code units. */
export function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
