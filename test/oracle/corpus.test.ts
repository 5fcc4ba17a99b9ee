/**
 * The committed sample of the oracle's regression corpus (test/fixtures/oracle-corpus/, made by
 * scripts/oracle-corpus.ts): each history judged again must give its recorded fingerprint, the
 * same verdict, violation count per invariant and evidence. A difference is a change of what the
 * oracle says; if it is meant, regenerate the sample (its README.md) and say why in the commit.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEntry, corpusEntries, readJson, REPO_ROOT, type SourceFile } from '../../scripts/corpus/corpus.ts';
import { describeDifference } from '../../scripts/corpus/fingerprint.ts';
import { pageSettings, pagesReadBack } from '../../src/oracle/lib/paged-column.ts';
import { scratchFilesOpened, spillSettings } from '../../src/oracle/lib/spill.ts';
import { hashSettings, indexPagesReadBack } from '../../src/oracle/lib/hash-slots.ts';

const SAMPLE = join(REPO_ROOT, 'test', 'fixtures', 'oracle-corpus');
const entries = corpusEntries(SAMPLE);

describe('oracle regression corpus sample', () => {
  it('holds matrix runs of each kind, random histories and a synthetic one', () => {
    const kinds = entries.map((n) => readJson<SourceFile>(join(SAMPLE, n, 'source.json')).kind);
    for (const kind of ['bug', 'clean', 'variant', 'random', 'synthetic'] as const) expect(kinds, kind).toContain(kind);
  });

  for (const name of entries) {
    it(`${name} is judged as recorded`, { timeout: 120_000 }, async () => {
      const r = await checkEntry(SAMPLE, name);
      expect(r.differences?.map(describeDifference)).toEqual([]);
    });
  }
});

describe('oracle regression corpus sample, every table and paged column kept on disk', () => {
  // Chunks of three rows: every table of lib/spill.ts that gets more than three rows is read back
  // from its scratch file. Pages of two rows, one kept and one read back: every paged column
  // (lib/paged-column.ts: the ledger's payments, ids, status spans, idempotent requests) that
  // gets more than two rows goes through its file, and back nearly at every read.
  let chunkRows = 0;
  let pages = { ...pageSettings };
  let index = { ...hashSettings };
  let opened = 0;
  let readBack = 0;
  let indexReads = 0;
  beforeAll(() => {
    chunkRows = spillSettings.chunkRows;
    pages = { ...pageSettings };
    index = { ...hashSettings };
    spillSettings.chunkRows = 3;
    Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
    // Indexes from ids to rows with two entries in memory: nearly every lookup goes through a run on disk.
    Object.assign(hashSettings, { memoryEntries: 2, runPageEntries: 2 });
    opened = scratchFilesOpened();
    readBack = pagesReadBack();
    indexReads = indexPagesReadBack();
  });
  afterAll(() => {
    spillSettings.chunkRows = chunkRows;
    Object.assign(pageSettings, pages);
    Object.assign(hashSettings, index);
  });

  for (const name of entries) {
    it(`${name} is judged as recorded`, { timeout: 120_000 }, async () => {
      const r = await checkEntry(SAMPLE, name);
      expect(r.differences?.map(describeDifference)).toEqual([]);
    });
  }

  it('spilled', () => {
    expect(scratchFilesOpened() - opened).toBeGreaterThan(entries.length);
    expect(pagesReadBack() - readBack).toBeGreaterThan(100 * entries.length);
    expect(indexPagesReadBack() - indexReads).toBeGreaterThan(100 * entries.length);
  });
});
