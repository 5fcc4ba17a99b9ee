/**
 * Writes the report files of a run into its directory, then publishes a copy as
 * `reports/latest/`: built in a temporary sibling and swapped in by rename, so a
 * reader never sees a half-written latest directory mixed with an older run's files.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { makeDirs } from '../history/index.ts';
import { basename, dirname, join, resolve } from 'node:path';
import { summarySchema, type Summary } from '../spec/summary.ts';
import { renderHtml } from './html/render.ts';
import { renderJUnit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { redactSummary } from './redact.ts';
import { withBoundedTimeline } from './bound.ts';
import { REPRO_DIR, writeRepros } from '../repro/generate.ts';
import { historyFileIn } from '../history/format.ts';

export const REPORT_FILES = ['summary.json', 'junit.xml', 'summary.md', 'report.html'] as const;

export interface WriteReportsOptions {
  /** Where the latest copy goes; default: `latest` next to runDir. */
  latestDir?: string;
  /** Write `repro/<invariant>-<n>.sh` per violation example when the run directory has its history (default true). */
  repro?: boolean;
}

/** What a snapshot rewrites: the two files a person or a CI step reads first. */
export const SNAPSHOT_FILES = ['summary.json', 'report.html'] as const;

/**
 * The verdict so far of a run still going (`snapshot` set, `snapshotAtMs`: run time): summary.json
 * and report.html in its directory, each written whole then renamed over the old one, so a run
 * killed at any moment leaves its last snapshot readable. The final reports replace them. Past an
 * hour, the snapshot's timeline is in buckets of whole seconds (bound.ts); the final one has every second.
 */
export async function writeSnapshot(runDir: string, summary: Summary, atMs: number): Promise<string[]> {
  // Written while the load runs, on its thread: a long run's timeline goes in buckets (bound.ts MAX_SNAPSHOT_POINTS).
  const valid = redactSummary(summarySchema.parse({ ...withBoundedTimeline(summary), snapshot: true, snapshotAtMs: Math.round(atMs) }));
  const contents: Record<(typeof SNAPSHOT_FILES)[number], string> = { 'summary.json': JSON.stringify(valid, null, 2) + '\n', 'report.html': renderHtml(valid) };
  await makeDirs(runDir);
  const files: string[] = [];
  for (const name of SNAPSHOT_FILES) {
    const path = join(runDir, name);
    const tmp = join(runDir, `.${name}.tmp-${process.pid}`);
    await writeFile(tmp, contents[name], 'utf8');
    await rename(tmp, path);
    files.push(path);
  }
  return files;
}

/** Returns every file written: the run directory's first, then the latest copies. */
export async function writeReports(runDir: string, summary: Summary, opts: WriteReportsOptions = {}): Promise<{ files: string[] }> {
  // A repro script per violation example, from the run's history (docs/repro.md); the examples link them.
  const history = historyFileIn(runDir);
  if (opts.repro !== false && history !== null) {
    try {
      await writeRepros(history, summary);
    } catch (e) {
      process.stderr.write(`paystorm: repro scripts were not written: ${(e as Error).message}\n`);
    }
  }
  // Validate first: a summary that does not match schema v1 must not be published.
  const valid = redactSummary(summarySchema.parse(summary));
  const contents: Record<(typeof REPORT_FILES)[number], string> = {
    'summary.json': JSON.stringify(valid, null, 2) + '\n',
    'junit.xml': renderJUnit(valid),
    'summary.md': renderMarkdown(valid),
    'report.html': renderHtml(valid),
  };
  await makeDirs(runDir);
  const files: string[] = [];
  for (const name of REPORT_FILES) {
    const path = join(runDir, name);
    await writeFile(path, contents[name], 'utf8');
    files.push(path);
  }

  const latestDir = opts.latestDir ?? join(dirname(resolve(runDir)), 'latest');
  if (resolve(latestDir) === resolve(runDir)) return { files };
  const toCopy: string[] = [...REPORT_FILES];
  // Copied to latest with the reports when the run directory has it.
  if (history !== null) toCopy.push(basename(history));
  for (const f of await readdir(join(runDir, REPRO_DIR)).catch(() => [] as string[])) toCopy.push(join(REPRO_DIR, f));
  files.push(...(await publishLatest(runDir, latestDir, toCopy)));
  return { files };
}

async function publishLatest(runDir: string, latestDir: string, names: string[]): Promise<string[]> {
  const parent = dirname(resolve(latestDir));
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmp = join(parent, `.${basename(latestDir)}.tmp-${suffix}`);
  const old = join(parent, `.${basename(latestDir)}.old-${suffix}`);
  await makeDirs(tmp);
  try {
    for (const name of names) {
      await makeDirs(dirname(join(tmp, name)));
      await copyFile(join(runDir, name), join(tmp, name));
    }
    // rename(2) cannot replace a non-empty directory, so move the old one aside first.
    let movedOld = false;
    try {
      await rename(latestDir, old);
      movedOld = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    try {
      await rename(tmp, latestDir);
    } catch (e) {
      if (movedOld) await rename(old, latestDir).catch(() => undefined);
      throw e;
    }
    if (movedOld) await rm(old, { recursive: true, force: true });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return names.map((n) => join(latestDir, n));
}

