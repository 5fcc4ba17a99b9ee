/**
 * Per-row columns for tables that grow a row at a time and are read by row number: typed arrays in
 * pages of rows (`pageSettings.rows`), made as rows arrive and never copied (a doubling array would hold up to
 * twice the rows in use, and three times while it grows), and codes for values of which a run has
 * few (key labels, merchants, card outcomes).
 */
import { openScratch, readScratch, writeScratch, type ScratchFile } from './spill.ts';

type Page = Float64Array | Uint32Array | Uint8Array;

/**
 * How the paged columns keep their pages, read when a column is made. A column keeps its newest
 * `resident` pages in memory and writes older ones to a scratch file (lib/spill.ts), reading one
 * back when a row of it is asked for, into one of `reloaded` places (the oldest reloaded page goes
 * back out first). A soak's old payments then cost disk, not heap; what is read back is what was
 * written, so where a row waits cannot change a verdict. `PAYSTORM_PAGE_ROWS` (a power of two)
 * sets the rows a page holds, with one page resident and one reloaded: the regression corpus runs
 * with pages of two rows, so that every table of a small history goes through its file.
 */
const rowsFromEnv = pageRowsFromEnv();
/** Whether `PAYSTORM_PAGE_ROWS` set the pages (lib/hash-slots.ts keeps its runs' pages as small then). */
export const pagesFromEnv = rowsFromEnv !== undefined;
export const pageSettings = rowsFromEnv === undefined ? { rows: 4096, resident: 4, reloaded: 8 } : { rows: rowsFromEnv, resident: 1, reloaded: 1 };

function pageRowsFromEnv(): number | undefined {
  const v = process.env.PAYSTORM_PAGE_ROWS;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (Number.isInteger(n) && n >= 2 && n <= 1 << 20 && (n & (n - 1)) === 0) return n;
  process.stderr.write(`paystorm: PAYSTORM_PAGE_ROWS: expected a power of two from 2 to 1048576 (e.g. 4096), got ${JSON.stringify(v)}; using 4096\n`);
  return undefined;
}

/** Pages a column has read back from its scratch file, all columns of this thread (tests: a table that should have gone to disk did). */
let pagesReloaded = 0;
export function pagesReadBack(): number {
  return pagesReloaded;
}

/** Single values a StringColumn has compared in its scratch file without reading their page back, all columns of this thread (tests). */
let partsRead = 0;
export function valuesReadInPlace(): number {
  return partsRead;
}

/**
 * Where a column's pages wait when not in memory: slots of a scratch file opened at the first page
 * that goes out. A page keeps its slot, so a page written again (a row of it set after it was read
 * back) overwrites its own bytes.
 */
class PageSlots {
  private fd: ScratchFile | null = null;
  private next = 0;
  /** File position of each page written, by page index (-1: never written). */
  readonly at: number[] = [];

  constructor(private readonly owner: object) {}

  write(i: number, bytes: Uint8Array): void {
    if (this.fd === null) this.fd = openScratch(this.owner);
    let pos = this.at[i] ?? -1;
    if (pos < 0) {
      pos = this.next;
      this.next += bytes.length;
      while (this.at.length < i) this.at.push(-1);
      this.at[i] = pos;
    }
    writeScratch(this.fd, bytes, pos);
  }

  read(i: number, into: Uint8Array): void {
    readScratch(this.fd!, into, this.at[i], `page ${i + 1}`);
    pagesReloaded++;
  }

  /** Fills `into` from `offset` bytes into page `i` (a few values of a page, not the page). */
  readPart(i: number, offset: number, into: Uint8Array): void {
    readScratch(this.fd!, into, this.at[i] + offset, `page ${i + 1}`);
    partsRead++;
  }
}

class PagedColumn<P extends Page> {
  private readonly pages: (P | undefined)[] = [];
  private readonly shift: number;
  private readonly mask: number;
  private readonly rows: number;
  private readonly resident: number;
  private readonly reloaded: number;
  /** Pages read back, oldest first (never one of the newest `resident`). */
  private readonly ring: number[] = [];
  /** Pages read back and set since: written again when they go out. */
  private readonly dirty: boolean[] = [];
  private readonly slots = new PageSlots(this);

  /** `width`: values a row holds (tables that lay out rows of several values read them by pageOf and at). */
  constructor(
    private readonly make: (values: number) => P,
    private readonly width = 1,
  ) {
    this.rows = pageSettings.rows;
    this.shift = 31 - Math.clz32(this.rows);
    this.mask = this.rows - 1;
    this.resident = Math.max(1, pageSettings.resident);
    this.reloaded = Math.max(1, pageSettings.reloaded);
  }

  /** The value in row `row` of a column of one value a row. */
  get(row: number): number {
    const i = row >>> this.shift;
    const p = this.pages[i];
    if (p !== undefined) return p[row & this.mask];
    return i < this.pages.length ? this.readBack(i)[row & this.mask] : 0;
  }

  /** Sets row `row` of a column of one value a row. */
  set(row: number, value: number): void {
    const i = row >>> this.shift;
    let p = this.pages[i];
    if (p === undefined) {
      if (i < this.pages.length) {
        p = this.readBack(i);
        this.dirty[i] = true;
      } else {
        while (this.pages.length <= i) this.addPage();
        p = this.pages[i]!;
      }
    } else if (i < this.pages.length - this.resident) this.dirty[i] = true;
    p[row & this.mask] = value;
  }

  /**
   * The page holding row `row`, made or read back as needed, for a table with several values a row:
   * they start at `at(row)`. With `write`, the caller may set values in it, and it is written again
   * when it goes out. Use it before asking this column for another page: it may go out then.
   */
  pageOf(row: number, write: boolean): P {
    const i = row >>> this.shift;
    let p = this.pages[i];
    if (p === undefined) {
      if (i < this.pages.length) p = this.readBack(i);
      else {
        while (this.pages.length <= i) this.addPage();
        return this.pages[i]!;
      }
    }
    if (write && i < this.pages.length - this.resident) this.dirty[i] = true;
    return p;
  }

  /** Where row `row`'s values start in its page. */
  at(row: number): number {
    return (row & this.mask) * this.width;
  }

  /** Pages made so far. */
  get pageCount(): number {
    return this.pages.length;
  }

  /** Rows a page holds. */
  get pageRows(): number {
    return this.rows;
  }

  /** A new newest page; the page that stops being one of the newest `resident` goes to the file. */
  private addPage(): void {
    const i = this.pages.length;
    this.pages.push(this.make(this.rows * this.width));
    const old = i - this.resident;
    if (old >= 0 && this.pages[old] !== undefined && !this.ring.includes(old)) this.putOut(old);
  }

  private putOut(i: number): void {
    const p = this.pages[i]!;
    if (this.slots.at[i] === undefined || this.slots.at[i] < 0 || this.dirty[i]) this.slots.write(i, new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
    this.dirty[i] = false;
    this.pages[i] = undefined;
  }

  private readBack(i: number): P {
    if (this.ring.length >= this.reloaded) this.putOut(this.ring.shift()!);
    const p = this.make(this.rows * this.width);
    this.slots.read(i, new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
    this.pages[i] = p;
    this.ring.push(i);
    return p;
  }
}

/** 64-bit numbers by row (0 where never set): times, seqs, amounts, read back exactly as set. */
export class Float64Column extends PagedColumn<Float64Array> {
  constructor(width = 1) {
    super((n) => new Float64Array(n), width);
  }
}

/** Unsigned 32-bit integers by row (0 where never set): codes and row numbers. */
export class Uint32Column extends PagedColumn<Uint32Array> {
  constructor(width = 1) {
    super((n) => new Uint32Array(n), width);
  }
}

/** Bytes by row (0 where never set): flags. */
export class Uint8Column extends PagedColumn<Uint8Array> {
  constructor(width = 1) {
    super((n) => new Uint8Array(n), width);
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

/** Buffer's own latin1 decoder (what toString('latin1', ...) calls after checking its arguments, which these are). */
type LatinSlicing = Buffer & { latin1Slice(start: number, end: number): string };

/** A page of strings read back: where each row's characters start, what kind of value it is, the characters. */
interface PackedStrings {
  starts: Uint32Array;
  kinds: Uint8Array;
  chars: Buffer;
}

const NONE = 0;
const ASCII = 1;
/** A string kept in the heap (`kept`): one UTF-8 cannot carry (a lone surrogate), or one set after its page went out. */
const KEPT = 2;
/** A string that is not ASCII, as UTF-8 (key labels hold an ellipsis: kept in the heap, every row of a soak's evidence held one). */
const UTF8 = 3;

/** Whether UTF-8 gives `s` back (it does unless `s` holds a lone surrogate). */
function utf8Carries(s: string): boolean {
  return Buffer.from(s, 'utf8').toString('utf8') === s;
}

/**
 * Strings by row (undefined where never set), for tables that set a row once as it arrives (ids,
 * idempotency keys, body digests): the newest pages as strings, older ones packed as bytes in a
 * scratch file and read back a page at a time: ASCII as Latin-1, other strings as UTF-8. One that
 * UTF-8 cannot carry (a lone surrogate) stays in the heap, so what is read back is always the string set.
 */
export class StringColumn {
  private readonly pages: ((string | undefined)[] | undefined)[] = [];
  private readonly packed: (PackedStrings | undefined)[] = [];
  private readonly sizes: number[] = [];
  private readonly kept = new Map<number, string | undefined>();
  /** Pages a row of was set after the page went out (their file copies do not say so). */
  private readonly setLate = new Set<number>();
  private readonly ring: number[] = [];
  private readonly shift: number;
  private readonly mask: number;
  private readonly rows: number;
  private readonly resident: number;
  private readonly reloaded: number;
  private readonly slots = new PageSlots(this);

  constructor() {
    this.rows = pageSettings.rows;
    this.shift = 31 - Math.clz32(this.rows);
    this.mask = this.rows - 1;
    this.resident = Math.max(1, pageSettings.resident);
    this.reloaded = Math.max(1, pageSettings.reloaded);
  }

  get(row: number): string | undefined {
    const i = row >>> this.shift;
    const p = this.pages[i];
    if (p !== undefined) return p[row & this.mask];
    if (i >= this.pages.length) return undefined;
    const q = this.packed[i] ?? this.readBack(i);
    const k = row & this.mask;
    const kind = q.kinds[k];
    if (kind === ASCII) return (q.chars as LatinSlicing).latin1Slice(q.starts[k], q.starts[k + 1]);
    if (kind === UTF8) return q.chars.toString('utf8', q.starts[k], q.starts[k + 1]);
    return kind === KEPT ? this.kept.get(row) : undefined;
  }

  /**
   * Whether row `row` holds `s`, without making a string of a row read back. A row of a page not in
   * memory is compared in the file (its start, its kind, its characters: three small reads), not
   * by reading its page back: an index confirming a match (lib/payment-rows.ts) names rows at
   * random, so a page read back for one row would seldom serve another, and would push out a page
   * that might.
   */
  equals(row: number, s: string): boolean {
    const i = row >>> this.shift;
    const p = this.pages[i];
    if (p !== undefined) return p[row & this.mask] === s;
    if (i >= this.pages.length) return false;
    const k = row & this.mask;
    const q = this.packed[i];
    if (q === undefined) return this.equalsInFile(i, k, s);
    const kind = q.kinds[k];
    if (kind === KEPT) return this.kept.get(row) === s;
    if (kind === UTF8) return q.chars.toString('utf8', q.starts[k], q.starts[k + 1]) === s;
    if (kind !== ASCII) return false;
    const a = q.starts[k];
    if (q.starts[k + 1] - a !== s.length) return false;
    const c = q.chars;
    for (let j = 0; j < s.length; j++) if (c[a + j] !== s.charCodeAt(j)) return false;
    return true;
  }

  /** Buffers for equalsInFile: a row's two starts, its kind, its characters. */
  private readonly partStarts = new Uint32Array(2);
  private readonly partKind = new Uint8Array(1);
  private partChars = Buffer.alloc(64);

  /** equals() for row `k` of page `i`, which is in the file only (see the layout at putOut). */
  private equalsInFile(i: number, k: number, s: string): boolean {
    const n = this.rows;
    if (this.setLate.has(i) && this.kept.has((i << this.shift) + k)) return this.kept.get((i << this.shift) + k) === s;
    this.slots.readPart(i, 4 * (n + 1) + k, this.partKind);
    const kind = this.partKind[0];
    if (kind === KEPT) return this.kept.get((i << this.shift) + k) === s;
    if (kind !== ASCII && kind !== UTF8) return false;
    this.slots.readPart(i, 4 * k, new Uint8Array(this.partStarts.buffer));
    const len = this.partStarts[1] - this.partStarts[0];
    if (len !== (kind === ASCII ? s.length : Buffer.byteLength(s, 'utf8'))) return false;
    if (this.partChars.length < len) this.partChars = Buffer.alloc(2 * len);
    const c = this.partChars.subarray(0, len);
    this.slots.readPart(i, 4 * (n + 1) + n + this.partStarts[0], c);
    if (kind === UTF8) return c.toString('utf8') === s;
    for (let j = 0; j < len; j++) if (c[j] !== s.charCodeAt(j)) return false;
    return true;
  }

  set(row: number, value: string | undefined): void {
    const i = row >>> this.shift;
    while (this.pages.length <= i) this.addPage();
    const p = this.pages[i];
    if (p !== undefined) p[row & this.mask] = value;
    else {
      // A row set again after its page went out (no table does so now): kept in the heap, and
      // marked so in the packed page if it is in memory; the file's copy is marked when read back.
      this.kept.set(row, value);
      this.setLate.add(i);
      const q = this.packed[i];
      if (q !== undefined) q.kinds[row & this.mask] = KEPT;
    }
  }

  private addPage(): void {
    const i = this.pages.length;
    this.pages.push(new Array<string | undefined>(this.rows).fill(undefined));
    const old = i - this.resident;
    if (old >= 0 && this.pages[old] !== undefined) this.putOut(old);
  }

  /** Packs page `i` and writes it: [starts: uint32 x (rows + 1)][kinds: uint8 x rows][characters]. */
  private putOut(i: number): void {
    const p = this.pages[i]!;
    const n = this.rows;
    const base = i << this.shift;
    // Each row's kind and size in bytes first (a string UTF-8 cannot carry stays in the heap).
    const kindOf = new Uint8Array(n);
    const bytes = new Uint32Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) {
      const s = p[k];
      if (s === undefined) continue;
      const b = Buffer.byteLength(s, 'utf8');
      kindOf[k] = b === s.length ? ASCII : utf8Carries(s) ? UTF8 : KEPT;
      if (kindOf[k] !== KEPT) (bytes[k] = b), (total += b);
    }
    const head = 4 * (n + 1) + n;
    const buf = Buffer.alloc(head + total);
    const starts = new Uint32Array(buf.buffer, buf.byteOffset, n + 1);
    const kinds = new Uint8Array(buf.buffer, buf.byteOffset + 4 * (n + 1), n);
    let at = 0;
    for (let k = 0; k < n; k++) {
      starts[k] = at;
      const s = p[k];
      if (s === undefined) continue;
      kinds[k] = kindOf[k];
      if (kindOf[k] === KEPT) this.kept.set(base + k, s);
      else {
        buf.write(s, head + at, kindOf[k] === ASCII ? 'latin1' : 'utf8');
        at += bytes[k];
      }
    }
    starts[n] = at;
    this.slots.write(i, buf);
    this.sizes[i] = buf.length;
    this.pages[i] = undefined;
  }

  private readBack(i: number): PackedStrings {
    if (this.ring.length >= this.reloaded) this.packed[this.ring.shift()!] = undefined;
    const n = this.rows;
    const buf = Buffer.allocUnsafe(this.sizes[i]);
    this.slots.read(i, buf);
    const head = 4 * (n + 1) + n;
    // A copy of the head, so that the starts are aligned whatever offset the buffer has.
    const starts = new Uint32Array(n + 1);
    new Uint8Array(starts.buffer).set(buf.subarray(0, 4 * (n + 1)));
    const kinds = buf.subarray(4 * (n + 1), head);
    if (this.setLate.has(i)) {
      const base = i << this.shift;
      for (let k = 0; k < n; k++) if (this.kept.has(base + k)) kinds[k] = KEPT;
    }
    for (let k = 0; k <= n; k++) starts[k] += head;
    const q = { starts, kinds, chars: buf };
    this.packed[i] = q;
    this.ring.push(i);
    return q;
  }
}
