/**
 * An index from a string's 32-bit hash to rows, for indexes from a string to a row
 * (lib/payment-rows.ts, lib/idem-tuples.ts): the caller keeps the strings (in a paged column) and
 * confirms a row whose hash matches, so the index holds numbers only.
 *
 * The newest entries are an open-addressed table in memory (a row and the hash a slot, 8 bytes, at
 * most three quarters full). Once it holds `hashSettings.memoryEntries`, its entries go to a scratch
 * file (lib/spill.ts) as a run sorted by hash, and the table starts again empty. What stays in
 * memory of a run is a Bloom filter (about 10 bits an entry: a lookup of a hash the run lacks
 * reads the file about once in a hundred) and the first hash of each of its pages. So a soak's
 * index costs about 1.3 bytes an entry of heap past a fixed table, where a table of every entry
 * cost 11 to 21. Runs of equal length are merged (as a binary counter carries), so a lookup looks
 * at most at about log2(entries / memoryEntries) runs.
 *
 * Which tier an entry sits in cannot change what a lookup finds: every entry under the hash is
 * offered to the caller until one is confirmed, and the callers' strings are unique.
 */
import { pageSettings, pagesFromEnv } from './paged-column.ts';
import { closeScratch, openScratch, readScratch, writeScratch, type ScratchFile } from './spill.ts';

/**
 * Entries the table in memory holds before they go to a run (98,304 fill a 1 MB table three
 * quarters), and entries a run's page holds (2 kB: most lookups that reach a run read one page). Read when an index is made. With
 * `PAYSTORM_PAGE_ROWS` set (the regression corpus's pages of two rows), both are that many, so that
 * nearly every entry of a small history is looked up in a run on disk.
 */
export const hashSettings = pagesFromEnv ? { memoryEntries: pageSettings.rows, runPageEntries: pageSettings.rows } : { memoryEntries: 98_304, runPageEntries: 256 };

/** Something whose strings the index holds the hashes of: says whether `row`'s string is the one looked for. */
export interface RowMatcher {
  matchesRow(row: number): boolean;
}

/** Bloom filter bits per entry, and bits a lookup tests (all in one 512-bit block: one cache line). */
const BLOOM_BITS_PER_ENTRY = 10;
const BLOOM_BLOCK_WORDS = 16;

/** Runs' pages read back, every index of this thread (tests: an index that should have gone to disk did). */
let runPagesRead = 0;
export function indexPagesReadBack(): number {
  return runPagesRead;
}

/** Mixes a 32-bit hash (murmur3's finalizer): the Bloom filter's bits must not follow the table's slots. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A run: entries sorted by hash in a scratch file, pairs [hash, row] of 32 bits. */
class Run {
  fd: ScratchFile | null = null;
  count = 0;
  /** First hash of each page. */
  pageFirst: Uint32Array;
  /** Blocked Bloom filter: `blocks` blocks of BLOOM_BLOCK_WORDS words (as many as 10 bits an entry take, not a power of two: a hash's block is its share of them). */
  readonly bloom: Int32Array;
  private readonly blocks: number;
  private pages = 0;
  /** The page being written, and entries in it. */
  private out: Uint32Array;
  private inOut = 0;

  constructor(
    capacity: number,
    readonly pageEntries: number,
  ) {
    this.pageFirst = new Uint32Array(Math.ceil(capacity / pageEntries));
    const blocks = Math.max(1, Math.ceil((capacity * BLOOM_BITS_PER_ENTRY) / (BLOOM_BLOCK_WORDS * 32)));
    this.bloom = new Int32Array(blocks * BLOOM_BLOCK_WORDS);
    this.blocks = blocks;
    this.out = new Uint32Array(2 * pageEntries);
  }

  /** Appends an entry (in hash order). */
  push(h: number, row: number): void {
    const o = this.out;
    if (this.inOut === 0) this.pageFirst[this.pages] = h;
    o[2 * this.inOut] = h;
    o[2 * this.inOut + 1] = row;
    this.count++;
    this.mark(h);
    if (++this.inOut === this.pageEntries) this.flushPage();
  }

  /** Writes the last page; the run is read-only after. */
  finish(): void {
    if (this.inOut > 0) this.flushPage();
    this.out = new Uint32Array(0);
    if (this.pageFirst.length > this.pages) this.pageFirst = this.pageFirst.slice(0, this.pages);
  }

  get pageCount(): number {
    return this.pages;
  }

  private flushPage(): void {
    if (this.fd === null) this.fd = openScratch(this);
    const bytes = new Uint8Array(this.out.buffer, 0, 8 * this.inOut);
    writeScratch(this.fd, bytes, this.pages * 8 * this.pageEntries);
    this.pages++;
    this.inOut = 0;
  }

  /** Entries in page `p`. */
  entriesIn(p: number): number {
    return p + 1 < this.pages ? this.pageEntries : this.count - p * this.pageEntries;
  }

  /** Reads page `p` into `into` (2 * pageEntries numbers); gives its entries. */
  readPage(p: number, into: Uint32Array): number {
    const n = this.entriesIn(p);
    readScratch(this.fd!, new Uint8Array(into.buffer, into.byteOffset, 8 * n), p * 8 * this.pageEntries, `index page ${p + 1} of ${this.pages}`);
    runPagesRead++;
    return n;
  }

  private mark(h: number): void {
    const a = mix(h);
    const b = mix(a ^ 0x5bd1e995);
    const c = mix(b ^ 0x27d4eb2f);
    const base = ((a * this.blocks) / 4294967296 | 0) * BLOOM_BLOCK_WORDS;
    const bl = this.bloom;
    for (let i = 0, x = b; i < 3; i++, x >>>= 9) bl[base + ((x >>> 5) & 15)] |= 1 << (x & 31);
    for (let i = 0, x = c; i < 3; i++, x >>>= 9) bl[base + ((x >>> 5) & 15)] |= 1 << (x & 31);
  }

  /** Whether an entry under `h` may be in the run (false: it is not). */
  mayHold(h: number): boolean {
    const a = mix(h);
    const b = mix(a ^ 0x5bd1e995);
    const c = mix(b ^ 0x27d4eb2f);
    const base = ((a * this.blocks) / 4294967296 | 0) * BLOOM_BLOCK_WORDS;
    const bl = this.bloom;
    for (let i = 0, x = b; i < 3; i++, x >>>= 9) if ((bl[base + ((x >>> 5) & 15)] & (1 << (x & 31))) === 0) return false;
    for (let i = 0, x = c; i < 3; i++, x >>>= 9) if ((bl[base + ((x >>> 5) & 15)] & (1 << (x & 31))) === 0) return false;
    return true;
  }

  /** The first page that may hold `h`: the one before the first page starting at `h` or later. */
  firstPageFor(h: number): number {
    let lo = 0;
    let hi = this.pages;
    const f = this.pageFirst;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (f[mid] < h) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(0, lo - 1);
  }

  /** Closes the run's file (its space is freed: the file was unlinked at open). */
  close(): void {
    if (this.fd !== null) closeScratch(this.fd);
    this.fd = null;
  }
}

export class HashSlots {
  /** The table in memory: slot pairs [row + 1 (0: free), hash]. */
  private slots = new Uint32Array(2 * 1024);
  private mask = 1023;
  private count = 0;
  /** Older entries, oldest run first. */
  private runs: Run[] = [];
  private readonly memoryEntries = Math.max(1, hashSettings.memoryEntries);
  private readonly pageEntries = Math.max(1, hashSettings.runPageEntries);
  /** Pages read back for lookups, and which (run, page) each holds: a few, for hashes that span pages. */
  private readonly cached: Uint32Array[] = [];
  private readonly cachedRun: (Run | null)[] = [];
  private readonly cachedPage: number[] = [];
  private readonly cachedCount: number[] = [];
  private nextCache = 0;

  /** Adds `row` under hash `h`. */
  add(row: number, h: number): void {
    if (this.count === this.memoryEntries) this.toRun();
    if (4 * ++this.count > 3 * (this.mask + 1)) this.grow();
    this.place(row, h);
  }

  /** Entries held, in memory and in runs. */
  get size(): number {
    let n = this.count;
    for (const r of this.runs) n += r.count;
    return n;
  }

  /** Runs on disk now (tests). */
  get runCount(): number {
    return this.runs.length;
  }

  /** The first row under hash `h` that `m` confirms, newest tier first; -1 when none does. */
  find(h: number, m: RowMatcher): number {
    const slots = this.slots;
    for (let i = h & this.mask, e = slots[2 * i]; e !== 0; i = (i + 1) & this.mask, e = slots[2 * i]) {
      if (slots[2 * i + 1] === h && m.matchesRow(e - 1)) return e - 1;
    }
    for (let k = this.runs.length - 1; k >= 0; k--) {
      const run = this.runs[k];
      if (!run.mayHold(h)) continue;
      for (let p = run.firstPageFor(h); p < run.pageCount; p++) {
        const c = this.cacheOf(run, p);
        const page = this.cached[c];
        const n = this.cachedCount[c];
        let i = 0;
        for (let hi = n; i < hi; ) {
          const mid = (i + hi) >>> 1;
          if (page[2 * mid] < h) i = mid + 1;
          else hi = mid;
        }
        for (; i < n && page[2 * i] === h; i++) if (m.matchesRow(page[2 * i + 1])) return page[2 * i + 1];
        if (i < n) break;
      }
    }
    return -1;
  }

  /** Page `p` of `run` among the pages read back, read now if it is not: its place in the cache. */
  private cacheOf(run: Run, p: number): number {
    for (let c = 0; c < this.cached.length; c++) if (this.cachedRun[c] === run && this.cachedPage[c] === p) return c;
    const c = this.nextCache;
    this.nextCache = (c + 1) % 4;
    if (this.cached.length <= c) {
      this.cached.push(new Uint32Array(2 * this.pageEntries));
      this.cachedRun.push(null);
      this.cachedPage.push(-1);
      this.cachedCount.push(0);
    }
    this.cachedRun[c] = run;
    this.cachedPage[c] = p;
    this.cachedCount[c] = run.readPage(p, this.cached[c]);
    return c;
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

  /** Writes the table's entries as a run sorted by hash, empties the table, and merges runs of equal length. */
  private toRun(): void {
    const n = this.count;
    const hashes = new Uint32Array(n);
    const rows = new Uint32Array(n);
    let k = 0;
    const slots = this.slots;
    for (let i = 0; i < slots.length; i += 2) {
      if (slots[i] !== 0) {
        hashes[k] = slots[i + 1];
        rows[k++] = slots[i] - 1;
      }
    }
    const order = sortByHash(hashes);
    const run = new Run(n, this.pageEntries);
    for (let i = 0; i < n; i++) run.push(hashes[order[i]], rows[order[i]]);
    run.finish();
    this.runs.push(run);
    slots.fill(0);
    this.count = 0;
    while (this.runs.length >= 2 && this.runs[this.runs.length - 2].count <= this.runs[this.runs.length - 1].count) {
      const b = this.runs.pop()!;
      const a = this.runs.pop()!;
      this.runs.push(this.merge(a, b));
    }
  }

  /** One run of the entries of two, read and written a page at a time. */
  private merge(a: Run, b: Run): Run {
    const out = new Run(a.count + b.count, this.pageEntries);
    const pa = new Uint32Array(2 * a.pageEntries);
    const pb = new Uint32Array(2 * b.pageEntries);
    let ia = 0, na = 0, pageA = 0;
    let ib = 0, nb = 0, pageB = 0;
    const fillA = () => {
      if (ia < na || pageA >= a.pageCount) return ia < na;
      na = a.readPage(pageA++, pa);
      ia = 0;
      return true;
    };
    const fillB = () => {
      if (ib < nb || pageB >= b.pageCount) return ib < nb;
      nb = b.readPage(pageB++, pb);
      ib = 0;
      return true;
    };
    for (;;) {
      const hasA = fillA();
      const hasB = fillB();
      if (!hasA && !hasB) break;
      if (hasA && (!hasB || pa[2 * ia] <= pb[2 * ib])) {
        out.push(pa[2 * ia], pa[2 * ia + 1]);
        ia++;
      } else {
        out.push(pb[2 * ib], pb[2 * ib + 1]);
        ib++;
      }
    }
    out.finish();
    a.close();
    b.close();
    for (let c = 0; c < this.cachedRun.length; c++) {
      if (this.cachedRun[c] === a || this.cachedRun[c] === b) this.cachedRun[c] = null;
    }
    return out;
  }
}

/** The order of `hashes` sorted ascending, equal hashes in their given order (a radix sort of two 16-bit passes: stable). */
export function sortByHash(hashes: Uint32Array): Uint32Array {
  const n = hashes.length;
  let order = new Uint32Array(n);
  let next = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const counts = new Uint32Array(65_537);
  for (const shift of [0, 16]) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((hashes[i] >>> shift) & 0xffff) + 1]++;
    for (let d = 1; d <= 65_536; d++) counts[d] += counts[d - 1];
    for (let i = 0; i < n; i++) {
      const o = order[i];
      next[counts[(hashes[o] >>> shift) & 0xffff]++] = o;
    }
    [order, next] = [next, order];
  }
  return order;
}

/** 32-bit FNV-1a of the string's UTF-16 code units. */
export function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
