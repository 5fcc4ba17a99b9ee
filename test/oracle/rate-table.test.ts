/**
 * RateTable (src/oracle/lib/rate-table.ts): a key's rate rows kept on disk but for the last chunk.
 * load() gives back every row as pushed, and headersOfSeq finds an earlier answer's headers by its
 * seq wherever the row now is: in memory, in a spilled chunk whose seqs rise, or in one whose do not
 * (a merged history's shards interleave).
 */
import { describe, expect, it } from 'vitest';
import { RATE_COLUMNS, RateTable, type RateColumn } from '../../src/oracle/lib/rate-table.ts';
import type { Columns } from '../../src/oracle/lib/columns.ts';
import { groupByReset, orderBy } from '../../src/oracle/lib/rate.ts';
import { Ledger } from '../../src/oracle/ledger.ts';
import { INVARIANTS, judge } from '../../src/oracle/index.ts';
import type { Invariant } from '../../src/oracle/types.ts';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resetSeq, runRec } from './fixtures.ts';
import { rl, S } from './cases/rate.ts';
import { spillSettings } from '../../src/oracle/lib/spill.ts';
import { seededRandom } from '../../src/spec/random.ts';

function withChunkRows<T>(rows: number, fn: () => T): T {
  const was = spillSettings.chunkRows;
  spillSettings.chunkRows = rows;
  try {
    return fn();
  } finally {
    spillSettings.chunkRows = was;
  }
}

describe('RateTable', () => {
  it('loads every row as pushed and finds any row by seq, rising or shuffled, on disk or in memory', () => {
    withChunkRows(16, () => {
      const rnd = seededRandom(11);
      const t = new RateTable();
      // Seqs rise for the first 100 rows, then come shuffled in blocks (merged shards), then rise again.
      const seqs = Array.from({ length: 100 }, (_, i) => 2 * i + 1);
      const shuffled = Array.from({ length: 60 }, (_, i) => 1_000 + i).sort(() => rnd() - 0.5);
      const all = [...seqs, ...shuffled, ...Array.from({ length: 45 }, (_, i) => 5_000 + i)];
      const rows = all.map((seq, i) => [seq, i * 10 + rnd(), i * 10 + 5 + rnd(), i % 9 === 0 ? 429 : 200, 100, 99 - (i % 100), i % 13 === 0 ? NaN : 1_700_000_000 + Math.floor(i / 50), i % 9 === 0 ? 3 : NaN]);
      const find = (upTo: number) => {
        for (let i = 0; i < upTo; i++) {
          const [seq, , , , limit, remaining, reset] = rows[i];
          expect(t.headersOfSeq(seq), `seq ${seq}`).toEqual([limit, remaining, reset]);
        }
      };
      rows.forEach((r, i) => {
        t.push(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
        // While the chunks still come in seq order (one chunk is searched), and once they do not.
        if (i === 99 || i === 159) find(i + 1);
      });
      expect(t.length).toBe(rows.length);
      const loaded = t.load();
      const back = rows.map((_, i) => RATE_COLUMNS.map((c) => loaded.col(c)[i]));
      expect(back).toEqual(rows);
      find(rows.length);
      // Seqs no row holds: between rising ones, past the end, and inside a shuffled chunk's range.
      for (const seq of [2, 4, 200, 1_100, 9_999]) expect(t.headersOfSeq(seq), `seq ${seq}`).toBeNull();
    });
  });
});

describe('Ledger.rateTables', () => {
  it('gives each key its own rows in one reused table, and orders and groups made from a key are not served for the next', () => {
    withChunkRows(8, () => {
      const ledger = new Ledger(new Map());
      const rnd = seededRandom(5);
      // Three keys: the second as long as the first (a cache checked by length alone would serve it the first's groups), the third longer.
      const lengths = { 'm/a': 30, 'm/b': 30, 'm/c': 75 };
      const pushed = new Map<string, number[][]>();
      let seq = 1;
      for (const [key, n] of Object.entries(lengths)) {
        const t = new RateTable();
        const rows: number[][] = [];
        for (let i = 0; i < n; i++) {
          const start = i * 100 + rnd() * 300;
          const row = [seq++, start, start + 20, 200, 10, 9, 1_700_000_000 + Math.floor(rnd() * (key === 'm/b' ? 2 : 5)), NaN];
          rows.push(row);
          t.push(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7]);
        }
        ledger.rate.set(key, t);
        pushed.set(key, rows);
      }
      const seen: string[] = [];
      let table: Columns<RateColumn> | null = null;
      for (const [key, c] of ledger.rateTables()) {
        seen.push(key);
        if (table) expect(c, 'one table reused for every key').toBe(table);
        table = c;
        const rows = pushed.get(key)!;
        expect(rows.map((_, i) => RATE_COLUMNS.map((col) => c.col(col)[i])), key).toEqual(rows);
        expect(c.length).toBe(rows.length);
        // The expected groups: rows by reset value, each group in start order (ties by row), groups by their first row.
        const byStart = rows.map((_, i) => i).sort((a, b) => rows[a][1] - rows[b][1] || a - b);
        const want = new Map<number, number[]>();
        for (const i of byStart) {
          const r = rows[i][6];
          if (!want.has(r)) want.set(r, []);
          want.get(r)!.push(i);
        }
        expect([...orderBy(c, 'tStart')], key).toEqual(byStart);
        expect([...groupByReset(c)].map(([r, g]) => [r, [...g]]), key).toEqual([...want]);
      }
      expect(seen).toEqual(Object.keys(lengths));
      // Once the keys are done the table reads as empty, not as the last key's rows.
      expect(table!.length).toBe(0);
      // The next rule is given the same table (and the arrays computed into it), until the conclusions' lists are dropped.
      const again = (): [Columns<RateColumn>, number] | null => {
        for (const [, c] of ledger.rateTables()) return [c, c.length];
        return null;
      };
      const [same, n] = again()!;
      expect(same).toBe(table);
      expect(n).toBe(30);
      ledger.dropConclusionLists();
      const [fresh, rows] = again()!;
      expect(fresh).not.toBe(table);
      expect(rows).toBe(30);
      // Walks do not nest (the inner would refill the table under the outer): an error, and the next walk works.
      expect(() => {
        for (const [, c] of ledger.rateTables()) for (const [, d] of ledger.rateTables()) expect(d).toBe(c);
      }).toThrow(/walked inside another of its walks/);
      expect(again()![1]).toBe(30);
    });
  });
});

describe('the judge and the rate table', () => {
  it('every invariant that reads ledger.rateTables() says so (readsRateTables), so the judge keeps its table no longer than they need it', () => {
    const dir = join(dirname(fileURLToPath(import.meta.url)), '../../src/oracle/invariants');
    const readers = INVARIANTS.filter((inv) => readFileSync(join(dir, `${inv.id}.ts`), 'utf8').includes('rateTables('));
    expect(readers.length).toBeGreaterThanOrEqual(7);
    expect(readers.filter((inv) => inv.readsRateTables !== true).map((inv) => inv.id)).toEqual([]);
    expect(INVARIANTS.filter((inv) => inv.readsRateTables === true && !readers.includes(inv)).map((inv) => inv.id)).toEqual([]);
  });

  it('one table serves the marked invariants in turn and is let go after the last of them', async () => {
    const tables: [string, Columns<RateColumn>][] = [];
    const reader = (id: string, marked: boolean): Invariant => ({
      id,
      title: id,
      rules: [],
      ...(marked ? { readsRateTables: true as const } : {}),
      create: (ctx) => ({
        finish: () => {
          for (const [, c] of ctx.ledger.rateTables()) tables.push([id, c]);
          return { status: 'pass', violations: 0, examples: [], reason: '', checked: 1 };
        },
      }),
    });
    resetSeq();
    const recs = [runRec(), rl(1, 100, 200, 9, S + 60), rl(2, 200, 200, 8, S + 60)];
    await judge(recs, { invariants: [reader('a', true), reader('b', true), reader('c', false), reader('d', true), reader('e', false)] });
    const [a, b, c, d, e] = tables.map(([, t]) => t);
    expect(tables.map(([id]) => id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    // Kept from a to d (c, unmarked, is given it too), let go after d, the last marked.
    expect([b, c, d].every((t) => t === a)).toBe(true);
    expect(e).not.toBe(a);
  });
});
