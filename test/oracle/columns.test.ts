/**
 * Columns (src/oracle/lib/columns.ts): what is read back is what was pushed, in 64-bit columns
 * and in narrow ones (32-bit while every value fits, 64-bit from the first that does not), as
 * the table grows past its first allocations.
 */
import { describe, expect, it } from 'vitest';
import { Columns } from '../../src/oracle/lib/columns.ts';
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
});
