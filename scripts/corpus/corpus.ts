/**
 * The oracle's regression corpus on disk, and judging it (scripts/oracle-corpus.ts builds it,
 * test/oracle/corpus.test.ts checks the committed sample). One folder per history:
 *
 *   <corpus>/<entry>/history.bin.gz    the history (absent for a synthetic entry: regenerated)
 *   <corpus>/<entry>/fingerprint.json  what the oracle said about it (scripts/corpus/fingerprint.ts)
 *   <corpus>/<entry>/source.json       where it came from (a matrix run, a seed, a generator and size)
 *
 * A history is judged as `paystorm check` judges a saved run (src/cli/judge-run.ts
 * `judgeHistory`, no extra thresholds, each scenario's own defaults), so a fingerprint says what
 * the oracle answers for that file whoever asks.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../../src/spec/index.ts';
import { judgeHistory } from '../../src/cli/judge-run.ts';
import { scenarioByName } from '../../scenarios/index.ts';
import { compareFingerprints, fingerprintOf, type Fingerprint, type FingerprintDifference } from './fingerprint.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ENTRY_FILES = { history: 'history.bin.gz', fingerprint: 'fingerprint.json', source: 'source.json' } as const;

/** Where an entry's history came from. */
export type CorpusSource =
  /** `rerun`: the full-suite run of a bug its declaring scenarios missed. `run`: the run's folder under the matrix's out dir. */
  | { kind: 'bug'; bug: string; rule: string; presentation: string; rerun: boolean; run: string }
  | { kind: 'clean'; presentation: string; run: string }
  | { kind: 'variant'; variant: string; presentation: string; run: string }
  /** A kept run the matrix report does not list (a narrow run its bug escalated from, a report cut short). */
  | { kind: 'run'; run: string }
  | { kind: 'random'; seed: number; generator: string; bendShare: number; records: number }
  | { kind: 'synthetic'; seed: number; records: number; generator: string };

export type SourceFile = CorpusSource & {
  /** For a matrix run: whether the live run's summary.json gave the same fingerprint as judging its history again. */
  liveAgrees?: boolean;
};

/** What `paystorm check` passes the oracle for a saved run with no options. */
export async function judgeFile(historyPath: string, warnings: string[] = []): Promise<Summary> {
  return judgeHistory(historyPath, { thresholds: [], scenarioThresholds: (n) => scenarioByName(n)?.thresholds ?? [], onWarning: (m) => warnings.push(m) });
}

/** The fingerprint of a summary of the history in `runDir` (paths under it and under the repository normalised). */
export function fingerprintIn(summary: Summary, runDir: string): Fingerprint {
  return fingerprintOf(summary, { paths: { [resolve(runDir)]: '<run>', [REPO_ROOT]: '<root>' } });
}

export async function fingerprintFile(historyPath: string): Promise<Fingerprint> {
  return fingerprintIn(await judgeFile(historyPath), dirname(historyPath));
}

/** JSON laid out one value a line down to `depth` levels (an invariant's examples), deeper values compact on their line. */
export function formatJson(value: unknown, depth = 4, indent = ''): string {
  if (depth <= 0 || value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = indent + ' ';
  if (Array.isArray(value)) return value.length ? `[\n${value.map((v) => inner + formatJson(v, depth - 1, inner)).join(',\n')}\n${indent}]` : '[]';
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return entries.length ? `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatJson(v, depth - 1, inner)}`).join(',\n')}\n${indent}}` : '{}';
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, formatJson(value) + '\n');
}

export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** The entries of a corpus, by name (folders holding a source.json). */
export function corpusEntries(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => existsSync(join(dir, n, ENTRY_FILES.source)))
    .sort();
}

/** The synthetic generator's history of `records` records, written to a temp file, judged, removed. */
export async function fingerprintSynthetic(records: number): Promise<Fingerprint> {
  const { writeSyntheticHistory } = await import('../../bench/lib/synthetic-history.ts');
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-corpus-'));
  try {
    const file = join(dir, ENTRY_FILES.history);
    await writeSyntheticHistory(file, records);
    return await fingerprintFile(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface EntryCheck {
  name: string;
  /** null: not judged (a synthetic entry when synthetic entries are skipped). */
  differences: FingerprintDifference[] | null;
  /** The fingerprint judged now (null when not judged). */
  now: Fingerprint | null;
  ms: number;
}

/** Judges one entry again with the current oracle and compares with its recorded fingerprint. */
export async function checkEntry(dir: string, name: string, opts: { synthetic?: boolean } = {}): Promise<EntryCheck> {
  const t0 = Date.now();
  const folder = join(dir, name);
  const source = readJson<SourceFile>(join(folder, ENTRY_FILES.source));
  const recorded = readJson<Fingerprint>(join(folder, ENTRY_FILES.fingerprint));
  let now: Fingerprint;
  if (source.kind === 'synthetic') {
    if (opts.synthetic === false) return { name, differences: null, now: null, ms: 0 };
    now = await fingerprintSynthetic(source.records);
  } else {
    now = await fingerprintFile(join(folder, ENTRY_FILES.history));
  }
  return { name, differences: compareFingerprints(recorded, now), now, ms: Date.now() - t0 };
}

/** Bytes of the files under `dir`. */
export function sizeOf(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    const s = statSync(p);
    n += s.isDirectory() ? sizeOf(p) : s.size;
  }
  return n;
}
