/**
 * A run's snapshot is the live judge's verdict so far (check.ts InterimCheck): judged midway, the
 * pass going on after. Two things must hold for it to be worth anything: the verdict so far is the
 * one a fresh `check` of the records so far gives (what a snapshot judged from the file's start
 * gave), and asking for it leaves the final verdict as it was (every invariant's finish() may add
 * to its counts: judge.ts takes that back). Judged here on the committed corpus sample (matrix
 * runs of every kind, random histories) and on more random histories, asked many times.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check, type CheckOptions, type InterimCheck } from '../../src/oracle/check.ts';
import { readHistory, type HistoryRecord } from '../../src/history/index.ts';
import { corpusEntries, ENTRY_FILES, readJson, REPO_ROOT, type SourceFile } from '../../scripts/corpus/corpus.ts';
import { randomHistory } from '../../scripts/corpus/random-history.ts';
import { scenarioByName } from '../../scenarios/index.ts';

const SAMPLE = join(REPO_ROOT, 'test', 'fixtures', 'oracle-corpus');
const options = (): CheckOptions => ({ thresholds: [], scenarioThresholds: (n) => scenarioByName(n)?.thresholds ?? [] });

async function recordsOf(name: string): Promise<HistoryRecord[]> {
  const out: HistoryRecord[] = [];
  for await (const r of readHistory(join(SAMPLE, name, ENTRY_FILES.history), { onWarning: () => undefined })) out.push(r);
  return out;
}

/** Judges `records` asking for the verdict so far before each record at `at`; gives those verdicts and the final one. */
async function judgedWithInterims(records: HistoryRecord[], at: ReadonlySet<number>): Promise<{ interims: { n: number; summary: string }[]; final: string }> {
  const interim: InterimCheck = { result: null };
  const interims: { n: number; summary: string }[] = [];
  const copy = structuredClone(records);
  function* fed(): Generator<HistoryRecord> {
    for (let n = 0; n < copy.length; n++) {
      if (at.has(n)) {
        const r = interim.result?.() ?? null;
        if (r) interims.push({ n, summary: JSON.stringify(r.summary) });
      }
      yield copy[n];
    }
  }
  const final = JSON.stringify((await check(fed(), { ...options(), interim })).summary);
  expect(interim.result).toBeNull();
  return { interims, final };
}

const plain = async (records: HistoryRecord[]): Promise<string> => JSON.stringify((await check(structuredClone(records), options())).summary);

/** `cuts` places spread over the history (after its first record). */
const spread = (length: number, cuts: number): Set<number> => new Set(Array.from({ length: cuts }, (_, i) => 1 + Math.floor(((i + 1) * (length - 1)) / (cuts + 1))));

describe('the verdict so far, midway through a pass', () => {
  for (const name of corpusEntries(SAMPLE).filter((n) => readJson<SourceFile>(join(SAMPLE, n, ENTRY_FILES.source)).kind !== 'synthetic')) {
    it(`${name}: each is check of the records so far, and the final verdict is unchanged`, { timeout: 120_000 }, async () => {
      const records = await recordsOf(name);
      const { interims, final } = await judgedWithInterims(records, spread(records.length, 6));
      expect(interims.length).toBe(6);
      for (const i of interims) expect(JSON.parse(i.summary), `at record ${i.n}`).toEqual(JSON.parse(await plain(records.slice(0, i.n))));
      expect(JSON.parse(final)).toEqual(JSON.parse(await plain(records)));
    });
  }

  it('random histories asked after every tenth record: the final verdict is unchanged', { timeout: 300_000 }, async () => {
    let failing = 0;
    for (let seed = 1000; seed < 1040; seed++) {
      const { records } = randomHistory(seed);
      const every = new Set(Array.from({ length: Math.floor(records.length / 10) }, (_, i) => (i + 1) * 10));
      const { interims, final } = await judgedWithInterims(records, every);
      expect(interims.length, `seed ${seed}`).toBeGreaterThan(0);
      const expected = await plain(records);
      expect(JSON.parse(final), `seed ${seed}`).toEqual(JSON.parse(expected));
      if ((JSON.parse(expected) as { verdict: string }).verdict === 'fail') failing++;
    }
    // Not trivially equal: some of them hold violations to be counted once.
    expect(failing).toBeGreaterThan(5);
  });

  it('before the first record there is nothing to give; the end record read, the final verdict is near', async () => {
    const records = await recordsOf('clean-B');
    const interim: InterimCheck = { result: null };
    const seen: (string | null)[] = [];
    const ask = () => seen.push(interim.result?.() ? 'result' : null);
    function* fed(): Generator<HistoryRecord> {
      for (let n = 0; n < records.length; n++) {
        if (n < 2) ask();
        yield records[n];
      }
      ask();
    }
    await check(fed(), { ...options(), interim });
    expect(records.at(-1)!.kind).toBe('end');
    expect(seen).toEqual([null, 'result', null]);
  });
});
