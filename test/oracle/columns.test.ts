/**
 * Columns (src/oracle/lib/columns.ts): what is read back is what was pushed, in 64-bit columns
 * and in narrow ones (32-bit while every value fits, 64-bit from the first that does not), as
 * the table grows past its first allocations.
 */
import { describe, expect, it } from 'vitest';
import { ColumnPool, Columns } from '../../src/oracle/lib/columns.ts';
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
    expect([...cols.order('status')].slice(0, 3).map((i) => rows[i][1])).toEqual([0, 0, 0]);
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

describe('Columns from a ColumnPool (the rate rules\' tables, loaded one after another)', () => {
  const names = ['t', 'status', 'seq'] as const;
  const load = (pool: ColumnPool, rows: number[][]) => {
    const c = new Columns(names, ['status', 'seq'], rows.length, pool);
    c.pushChunk([rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])], rows.length);
    return c;
  };
  it('gives each table its own values in the same memory, widening a narrow column exactly', () => {
    const pool = new ColumnPool();
    const a = load(pool, [[1.5, 200, 1], [2.25, 429, 2], [3, 200, 3]]);
    expect([...a.col('t')]).toEqual([1.5, 2.25, 3]);
    expect([...a.col('status')]).toEqual([200, 429, 200]);
    const buffer = a.col('t').buffer;
    // The next table (shorter) is a view of the same buffers; a seq past 2^24 widens its column to 64 bits.
    const b = load(pool, [[9.75, 503, 2 ** 24 + 1], [10, 201, 5]]);
    expect(b.col('t').buffer).toBe(buffer);
    expect([...b.col('t')]).toEqual([9.75, 10]);
    expect([...b.col('status')]).toEqual([503, 201]);
    expect(b.col('seq')).toBeInstanceOf(Float64Array);
    expect([...b.col('seq')]).toEqual([2 ** 24 + 1, 5]);
    // A longer table gets a bigger buffer, and its values.
    const rows = Array.from({ length: 50 }, (_, i) => [i / 4, 200 + (i % 3), i]);
    const c = load(pool, rows);
    expect([...c.col('t')]).toEqual(rows.map((r) => r[0]));
    expect([...c.col('seq')]).toEqual(rows.map((r) => r[2]));
  });

  it('refuses to read a table after the next was made from its memory, and after the pool let go', () => {
    const pool = new ColumnPool();
    const a = load(pool, [[1, 200, 1]]);
    load(pool, [[2, 200, 2]]);
    expect(() => a.col('t')).toThrow(/read after the next one was made/);
    const c = load(pool, [[3, 200, 3]]);
    pool.release();
    expect(() => c.col('t')).toThrow(/read after the next one was made/);
    // A table made without a pool is never refused.
    const free = new Columns(names);
    free.pushValues(1, 2, 3);
    expect(free.col('seq')[0]).toBe(3);
  });
});
