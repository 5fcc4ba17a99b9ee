// The index from hashes to rows keeps its newest entries in memory and older ones in runs on disk:
// what a lookup finds must not depend on which tier an entry sits in, hashes shared by many
// entries must be found across pages and runs, merged runs must give their files back, and a
// lookup of a hash no run holds must seldom read the disk (the Bloom filters).
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HashSlots, hashOf, hashSettings, indexPagesReadBack, type RowMatcher } from '../../src/oracle/lib/hash-slots.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';

/** Makes what `make` builds with an index of `memory` entries in memory and runs of pages of `page` entries. */
function withIndex<T>(memory: number, page: number, make: () => T): T {
  const saved = { ...hashSettings };
  Object.assign(hashSettings, { memoryEntries: memory, runPageEntries: page });
  try {
    return make();
  } finally {
    Object.assign(hashSettings, saved);
  }
}

/** Confirms one row, counting the rows it was offered. */
class Exactly implements RowMatcher {
  offered = 0;
  constructor(private readonly row: number) {}
  matchesRow(row: number): boolean {
    this.offered++;
    return row === this.row;
  }
}

const openFiles = () => readdirSync('/proc/self/fd').length;

describe('HashSlots with runs on disk', () => {
  it('finds every row under its hash, in memory or in any run, with hashes shared across pages and runs', () => {
    const slots = withIndex(3, 2, () => new HashSlots());
    const n = 500;
    // Hash i % 7: about 70 rows share each hash, so each hash spans many pages of every run.
    const hashOfRow = (i: number) => (i % 7) * 0x2000_0001;
    for (let i = 0; i < n; i++) slots.add(i, hashOfRow(i) >>> 0);
    expect(slots.size).toBe(n);
    // A binary counter of flushes of 3: at most log2(500 / 3) + 1 runs.
    expect(slots.runCount).toBeGreaterThan(1);
    expect(slots.runCount).toBeLessThanOrEqual(Math.floor(Math.log2(n / 3)) + 1);
    const read = indexPagesReadBack();
    for (let i = 0; i < n; i++) expect(slots.find(hashOfRow(i) >>> 0, new Exactly(i))).toBe(i);
    expect(indexPagesReadBack()).toBeGreaterThan(read);
    // A row under another hash is never offered; a hash no row has offers nothing.
    const never = new Exactly(-1);
    expect(slots.find(hashOfRow(3) >>> 0, never)).toBe(-1);
    expect(never.offered).toBe(Array.from({ length: n }, (_, i) => i).filter((i) => i % 7 === 3).length);
    const none = new Exactly(-1);
    expect(slots.find(12345, none)).toBe(-1);
    expect(none.offered).toBe(0);
  });

  it('answers as a Map would, with adds and lookups interleaved through many flushes and merges', () => {
    const slots = withIndex(5, 3, () => new HashSlots());
    const ids: string[] = [];
    const byId = new Map<string, number>();
    let x = 7;
    const matcher = new (class implements RowMatcher {
      sought = '';
      matchesRow(row: number) {
        return ids[row] === this.sought;
      }
    })();
    const find = (id: string) => {
      matcher.sought = id;
      const r = slots.find(hashOf(id), matcher);
      return r < 0 ? undefined : r;
    };
    for (let step = 0; step < 3000; step++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const id = `k${x % 1500}`;
      expect(find(id)).toBe(byId.get(id));
      if (!byId.has(id)) {
        byId.set(id, ids.length);
        slots.add(ids.length, hashOf(id));
        ids.push(id);
      }
    }
    expect(slots.size).toBe(byId.size);
    for (const [id, row] of byId) expect(find(id)).toBe(row);
    expect(find('absent')).toBeUndefined();
  });

  it('gives a merged run\'s file back, so open files grow with the log of the entries, not their count', () => {
    const before = openFiles();
    const slots = withIndex(4, 4, () => new HashSlots());
    for (let i = 0; i < 4100; i++) slots.add(i, hashOf(`p${i}`));
    // 1,024 flushes of 4 entries merge into one run of 4,096 (the last 4 in memory): one file open, not 1,024.
    expect(slots.runCount).toBe(1);
    expect(openFiles() - before).toBeLessThanOrEqual(2);
    for (let i = 0; i < 4100; i += 97) expect(slots.find(hashOf(`p${i}`), new Exactly(i))).toBe(i);
  });

  it('seldom reads the disk for a hash it does not hold (about 1% per run, the Bloom filter)', () => {
    const slots = withIndex(20_000, 1024, () => new HashSlots());
    for (let i = 0; i < 80_000; i++) slots.add(i, hashOf(`pay_${i}`));
    expect(slots.runCount).toBe(2);
    const read = indexPagesReadBack();
    const lookups = 20_000;
    for (let i = 0; i < lookups; i++) expect(slots.find(hashOf(`absent_${i}`), new Exactly(-1))).toBe(-1);
    // Three tiers, two of them runs (40,000 and 20,000 entries): a lookup reads a page only where a filter says "maybe".
    const perLookup = (indexPagesReadBack() - read) / lookups;
    expect(perLookup).toBeLessThan(0.05);
    // And every entry is found: a filter never says "no" to what its run holds.
    for (let i = 0; i < 80_000; i += 7) expect(slots.find(hashOf(`pay_${i}`), new Exactly(i))).toBe(i);
  });
});

describe('PaymentRows with its index on disk', () => {
  it('tells ids whose hashes collide apart when one is in a run and the other in memory', () => {
    // pay_10unw and pay_1xwba have the same 32-bit FNV-1a hash (found by search).
    const saved = { ...pageSettings };
    Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
    let rows: PaymentRows;
    try {
      rows = withIndex(2, 2, () => new PaymentRows());
    } finally {
      Object.assign(pageSettings, saved);
    }
    const ids = ['pay_10unw', ...Array.from({ length: 200 }, (_, i) => `pay_${i}_x`), 'pay_1xwba'];
    ids.forEach((id, i) => expect(rows.rowOf(id)).toBe(i));
    expect(hashOf('pay_10unw')).toBe(hashOf('pay_1xwba'));
    expect(rows.find('pay_10unw')).toBe(0);
    expect(rows.find('pay_1xwba')).toBe(ids.length - 1);
    expect(rows.find('pay_unknown')).toBeUndefined();
    for (let i = ids.length - 1; i >= 0; i--) expect(rows.find(ids[i])).toBe(i);
    expect(rows.rowOf('pay_10unw')).toBe(0);
    expect(rows.size).toBe(ids.length);
  });
});
