/**
 * Columns (src/oracle/lib/columns.ts): what is read back is what was pushed, in 64-bit columns
 * and in narrow ones (32-bit while every value fits, 64-bit from the first that does not), as
 * the table grows past its first allocations.
 */
import { describe, expect, it } from 'vitest';
import { Columns, sortRows } from '../../src/oracle/lib/columns.ts';
import { seededRandom } from '../../src/spec/random.ts';

describe('Columns', () => {
  it('gives back every value pushed, narrow columns included, and widens a narrow column at the first value 32 bits would change', () => {
    const rnd = seededRandom(3);
    const cols = new Columns(['t', 'status', 'remaining'] as const, ['status', 'remaining']);
    const rows: number[][] = [];
    for (let i = 0; i < 5_000; i++) {
      const t = rnd() * 1e6;
      const status = [200, 201, 409, 429, 0][i % 5];
      // Small integers and NaN (absent) fit 32 bits; from row 3,000 on, a fraction does not.
      const remaining = i === 100 ? NaN : i >= 3_000 && i % 7 === 0 ? 0.1 + i : 500 - (i % 500);
      rows.push([t, status, remaining]);
      if (i % 2) cols.push({ t, status, remaining });
      else cols.pushValues(t, status, remaining);
      // Before the first fraction, the narrow columns are 32-bit; after it, `remaining` is 64-bit.
      if (i === 2_999) expect([cols.col('status'), cols.col('remaining')].map((c) => c.constructor.name)).toEqual(['Float32Array', 'Float32Array']);
    }
    expect(cols.length).toBe(rows.length);
    expect(cols.col('t').constructor.name).toBe('Float64Array');
    expect(cols.col('status').constructor.name).toBe('Float32Array');
    expect(cols.col('remaining').constructor.name).toBe('Float64Array');
    const read = rows.map((_, i) => [cols.col('t')[i], cols.col('status')[i], cols.col('remaining')[i]]);
    expect(read).toEqual(rows);
  });

  it('pushChunk gives back what rows pushed one by one give, a narrow column widening mid-chunk included', () => {
    const rnd = seededRandom(9);
    const one = new Columns(['t', 'n'] as const, ['n'], 10);
    const bulk = new Columns(['t', 'n'] as const, ['n'], 10);
    for (let chunk = 0; chunk < 5; chunk++) {
      const n = 1 + Math.floor(rnd() * 300);
      const t = Float64Array.from({ length: n }, () => rnd() * 1e9);
      // Whole numbers and NaN, but a fraction in the middle of the fourth chunk.
      const v = Float64Array.from({ length: n }, (_, i) => (chunk === 3 && i === Math.floor(n / 2) ? 0.1 : i % 11 === 0 ? NaN : i));
      for (let i = 0; i < n; i++) one.pushValues(t[i], v[i]);
      bulk.pushChunk([t, v], n);
      if (chunk === 2) expect(bulk.col('n').constructor.name).toBe('Float32Array');
    }
    expect(bulk.length).toBe(one.length);
    expect(bulk.col('n').constructor.name).toBe('Float64Array');
    expect([...bulk.col('t').subarray(0, bulk.length)]).toEqual([...one.col('t').subarray(0, one.length)]);
    expect([...bulk.col('n').subarray(0, bulk.length)]).toEqual([...one.col('n').subarray(0, one.length)]);
  });
});

describe('sortRows', () => {
  const comparatorSort = (rows: number[], v: ArrayLike<number>) => [...rows].sort((a, b) => v[a] - v[b] || a - b);

  it('gives what the comparator sort of a plain array gives: random, tied, nearly sorted and reversed values, any subset of rows', () => {
    const rnd = seededRandom(17);
    for (const n of [0, 1, 2, 31, 32, 33, 100, 1000, 5000]) {
      const shapes: Record<string, (i: number) => number> = {
        random: () => rnd() * 1000,
        ties: () => Math.floor(rnd() * 5),
        nearly: (i) => i + rnd() * 40,
        reversed: (i) => n - i,
      };
      for (const [shape, value] of Object.entries(shapes)) {
        const v = Float64Array.from({ length: n }, (_, i) => value(i));
        // A subset of rows in an order of its own, as rate-remaining sorts a window's rows.
        const rows = Array.from({ length: n }, (_, i) => i).filter(() => rnd() < 0.7).sort(() => rnd() - 0.5);
        expect([...sortRows(Uint32Array.from(rows), v)], `${shape} ${n}`).toEqual(comparatorSort(rows, v));
      }
    }
  });

  it('keeps the comparator sort\'s order for a column holding NaN', () => {
    const v = Float64Array.from([3, NaN, 1, 2, NaN, 0, 5, 4]);
    for (const rows of [[7, 6, 5, 4, 3, 2, 1, 0], [4, 1], [0, 4, 1, 2]]) {
      expect([...sortRows(Uint32Array.from(rows), v)], String(rows)).toEqual(comparatorSort(rows, v));
    }
  });

  it('sorts a table\'s rows by one of its columns, ties by row index', () => {
    const cols = new Columns(['t'] as const, [], 4);
    for (const t of [5, 1, 5, 0, 1, 9, 0]) cols.pushValues(t);
    const rows = Uint32Array.from({ length: cols.length }, (_, i) => i);
    expect([...sortRows(rows, cols.col('t'))]).toEqual([3, 6, 1, 4, 0, 2, 5]);
  });
});
