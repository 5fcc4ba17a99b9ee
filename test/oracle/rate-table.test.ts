/**
 * RateTable (src/oracle/lib/rate-table.ts): a key's rate rows kept on disk but for the last chunk.
 * load() gives back every row as pushed, and headersOfSeq finds an earlier answer's headers by its
 * seq wherever the row now is: in memory, in a spilled chunk whose seqs rise, or in one whose do not
 * (a merged history's shards interleave).
 */
import { describe, expect, it } from 'vitest';
import { RATE_COLUMNS, RateTable } from '../../src/oracle/lib/rate-table.ts';
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
