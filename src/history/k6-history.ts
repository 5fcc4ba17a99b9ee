/**
 * `paystorm check FILE` on k6 output: recognises the file by its content (k6's --out json,
 * plain or gzipped; a summary export is refused), reads it (k6.ts) and hands its records to the
 * oracle as they are decoded, in batches, without a history file in between. The reports go to
 * `<file without .json/.gz>.paystorm/`; `saveHistory` writes the converted history there too,
 * as `history.bin.gz` (the encoding runs write; check does when the run has violations, whose
 * repro scripts are made from it), `dropHistory` removes one an earlier check left. Nothing is
 * written when the file is refused.
 */
import { makeDirsSync } from './dirs.ts';
import { basename, dirname, join } from 'node:path';
import { renameSync, rmSync, statSync } from 'node:fs';
import { readK6, k6FileKind, summaryExportError, type K6Follower, type K6Run } from './k6.ts';
import { HISTORY_FILE, HISTORY_FILES } from './format.ts';
import { HistoryWriter } from './writer.ts';
import type { HistoryRecord } from './schema.ts';

/** Records handed to the oracle per batch (one promise per batch, not per record). */
const BATCH_RECORDS = 512;

export interface K6Source {
  /** The run, read and checked line by line. */
  k6: K6Run;
  /** The records for the oracle (`batches()` as readHistory's). */
  records: AsyncIterable<HistoryRecord> & { batches: () => AsyncIterable<HistoryRecord[]> };
  /** Where reports go (null: --no-write). */
  reportDir: string | null;
  /**
   * Writes the converted history into reportDir (history.bin.gz, the encoding runs write; the
   * records are decoded again) and returns its path.
   */
  saveHistory: () => Promise<string>;
  /** Removes a history an earlier check left in reportDir: it is not this judgement's. */
  dropHistory: () => void;
}

/** The run folder of a k6 output file: `run.k6.json.gz` -> `run.k6.paystorm`. */
export function k6RunDirOf(file: string): string {
  const base = basename(file).replace(/\.gz$/i, '').replace(/\.(nd)?json$/i, '');
  return join(dirname(file), `${base || 'k6'}.paystorm`);
}

/** Null when the path is not k6 output (a paystorm run or history: judged as before). */
export async function k6SourceOf(path: string, opts: { write: boolean; onWarning?: (m: string) => void; follower?: K6Follower; onRead?: (lines: number, bytesRead: number) => void }): Promise<K6Source | null> {
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return null;
  }
  if (!isFile) return null;
  const kind = await k6FileKind(path);
  if (kind === null) return null;
  if (kind === 'k6-summary') throw summaryExportError(path);
  const k6 = await readK6(path, { onWarning: opts.onWarning, ...(opts.follower ? { follower: opts.follower } : {}), ...(opts.onRead ? { onRead: opts.onRead } : {}) });
  const reportDir = opts.write ? k6RunDirOf(path) : null;
  /** The run with its records kept: this read's, or (a follower was handed them) a second read's. */
  let kept: Promise<K6Run> | null = k6.kept ? Promise.resolve(k6) : null;
  const keptRun = (): Promise<K6Run> => (kept ??= readK6(path));
  async function* batches(): AsyncGenerator<HistoryRecord[]> {
    let batch: HistoryRecord[] = [];
    for (const r of (await keptRun()).records()) {
      batch.push(r);
      if (batch.length >= BATCH_RECORDS) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }
  const records = {
    batches,
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches()) yield* batch;
    },
  };
  const saveHistory = async (): Promise<string> => {
    const dir = reportDir ?? k6RunDirOf(path);
    makeDirsSync(dir);
    const historyPath = join(dir, HISTORY_FILE);
    // Written beside and renamed once whole: a record refused on the way leaves no history behind.
    const partial = `${historyPath}.partial`;
    const writer = new HistoryWriter({ path: partial });
    try {
      // The records carry their seq already: the writer numbers them again in the same order.
      for (const r of (await keptRun()).records()) {
        writer.write(r);
        if (writer.needsDrain) await writer.drained();
      }
    } finally {
      await writer.close();
    }
    renameSync(partial, historyPath);
    return historyPath;
  };
  const dropHistory = (): void => {
    if (reportDir !== null) for (const f of HISTORY_FILES) rmSync(join(reportDir, f), { force: true });
  };
  return { k6, records, reportDir, saveHistory, dropHistory };
}
