/**
 * SpillColumns (src/oracle/lib/spill.ts): rows kept on disk but for the last chunk are read back
 * exactly as pushed, in order, as often as asked, with pushes in between; the scratch file leaves
 * nothing in the temporary directory; a directory it cannot write is named with the fix.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { scratchFilesOpened, SpillColumns } from '../../src/oracle/lib/spill.ts';
import { seededRandom } from '../../src/spec/random.ts';

function readAll<K extends string>(t: SpillColumns<K>): number[][] {
  const out: number[][] = [];
  for (const { cols, n } of t.chunks()) for (let i = 0; i < n; i++) out.push(cols.map((c) => c[i]));
  return out;
}

const savedTmp = process.env.TMPDIR;
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

describe('SpillColumns', () => {
  it('gives back every row as pushed, across spilled chunks and the one in memory, and again after more pushes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
    process.env.TMPDIR = dir;
    try {
      const rnd = seededRandom(7);
      const t = new SpillColumns(['tStart', 'tEnd', 'seq'] as const, 100);
      const rows: number[][] = [];
      const opened = scratchFilesOpened();
      const push = (count: number) => {
        for (let i = 0; i < count; i++) {
          // Doubles no 32-bit float holds, NaN, -0 and huge values: the bytes go to disk and back.
          const tStart = rnd() * 1e9 + 0.123456789;
          const row = [tStart, i % 97 === 0 ? NaN : tStart + rnd() * 50, i % 89 === 0 ? -0 : rows.length * 2 ** 40];
          rows.push(row);
          t.pushValues(...row);
          expect(t.residentRows).toBeLessThan(100);
        }
      };
      push(1_050);
      expect(scratchFilesOpened()).toBe(opened + 1);
      expect(t.length).toBe(1_050);
      expect(readAll(t)).toEqual(rows);
      // Read again (an interim judgement, then the final one), with rows pushed in between.
      push(333);
      expect(readAll(t)).toEqual(rows);
      expect(Object.is(readAll(t)[0][2], -0)).toBe(true);
      expect([t.index('tStart'), t.index('tEnd'), t.index('seq')]).toEqual([0, 1, 2]);
      // The scratch file was unlinked when opened: nothing is left in the directory, even while the table lives.
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('grows the chunk in memory from a few rows to a whole one without losing a row', () => {
    const t = new SpillColumns(['a', 'b'] as const, 1_000);
    const rows: number[][] = [];
    for (let i = 0; i < 2_500; i++) {
      rows.push([i, -i / 3]);
      t.pushValues(i, -i / 3);
      // Read while it grows (256, 512, 1,000 rows) and after each spill.
      if ([255, 256, 511, 700, 999, 1_000, 2_100].includes(i)) expect(readAll(t)).toEqual(rows);
    }
    expect(readAll(t)).toEqual(rows);
    expect(t.residentRows).toBe(500);
  });

  it('never touches the disk while the rows fit one chunk', () => {
    const opened = scratchFilesOpened();
    const t = new SpillColumns(['v'] as const, 64);
    for (let i = 0; i < 63; i++) t.pushValues(i);
    expect(readAll(t).flat()).toEqual(Array.from({ length: 63 }, (_, i) => i));
    expect(scratchFilesOpened()).toBe(opened);
  });

  it('names the directory and the fix when it cannot open its scratch file', () => {
    process.env.TMPDIR = join(tmpdir(), 'paystorm-no-such-dir', 'deeper');
    const t = new SpillColumns(['v'] as const, 4);
    for (let i = 0; i < 3; i++) t.pushValues(i);
    expect(() => t.pushValues(3)).toThrow(/could not open a scratch file in .*paystorm-no-such-dir.*set TMPDIR to a directory it can write/);
  });
});

describe('a judge that cannot write its scratch files', () => {
  it('fails the verdict with every invariant "error" naming the directory and the fix, and keeps the metrics', async () => {
    const { judgeFile, REPO_ROOT } = await import('../../scripts/corpus/corpus.ts');
    const { spillSettings } = await import('../../src/oracle/lib/spill.ts');
    const history = join(REPO_ROOT, 'test', 'fixtures', 'oracle-corpus', 'clean-A', 'history.bin.gz');
    const chunkRows = spillSettings.chunkRows;
    spillSettings.chunkRows = 3;
    process.env.TMPDIR = join(tmpdir(), 'paystorm-no-such-dir');
    try {
      const summary = await judgeFile(history);
      expect(summary.verdict).toBe('fail');
      expect(summary.invariants.length).toBeGreaterThan(50);
      expect(summary.invariants.filter((i) => i.status !== 'error').map((i) => i.id)).toEqual([]);
      // The ledger's rate table spills first: every invariant names why, where, and what to do.
      for (const i of summary.invariants) expect(i.error ?? '', i.id).toMatch(/could not open a scratch file in .*paystorm-no-such-dir.*set TMPDIR to a directory it can write/);
      expect(summary.metrics.requests).toBeGreaterThan(100);
    } finally {
      spillSettings.chunkRows = chunkRows;
    }
  }, 60_000);
});

describe('PAYSTORM_SPILL_CHUNK_ROWS', () => {
  it('sets the chunk; a value that is not a row count is said on stderr and the default kept', () => {
    const read = (value: string) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', "import('./src/oracle/lib/spill.ts').then((m) => process.stdout.write(String(m.spillSettings.chunkRows)))"], {
        env: { ...process.env, PAYSTORM_SPILL_CHUNK_ROWS: value },
        encoding: 'utf8',
      });
      return { rows: r.stdout, said: r.stderr.trim(), status: r.status };
    };
    expect(read('7')).toEqual({ rows: '7', said: '', status: 0 });
    expect(read('1.5')).toEqual({ rows: '65536', said: 'paystorm: PAYSTORM_SPILL_CHUNK_ROWS: expected a whole number of rows of at least 1 (e.g. 65536), got "1.5"; using 65536', status: 0 });
  }, 30_000);
});
