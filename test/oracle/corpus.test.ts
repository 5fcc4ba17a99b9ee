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
import { scratchFilesOpened, spillSettings } from '../../src/oracle/lib/spill.ts';
import { quietNotesWritten } from '../../src/oracle/lib/quiet-store.ts';

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

describe('oracle regression corpus sample, every table and note kept on disk', () => {
  // Chunks of three rows: every table of lib/spill.ts that gets more than three rows is read back from its scratch file;
  // and every note of a lib/quiet-store.ts store not used by the very last use is written out and read back.
  let saved = { ...spillSettings };
  let opened = 0;
  let noted = 0;
  beforeAll(() => {
    saved = { ...spillSettings };
    spillSettings.chunkRows = 3;
    spillSettings.quietAfter = 1;
    opened = scratchFilesOpened();
    noted = quietNotesWritten();
  });
  afterAll(() => {
    Object.assign(spillSettings, saved);
  });

  for (const name of entries) {
    it(`${name} is judged as recorded`, { timeout: 120_000 }, async () => {
      const r = await checkEntry(SAMPLE, name);
      expect(r.differences?.map(describeDifference)).toEqual([]);
    });
  }

  it('spilled', () => {
    expect(scratchFilesOpened() - opened).toBeGreaterThan(entries.length);
    expect(quietNotesWritten() - noted).toBeGreaterThan(1_000);
  });
});
