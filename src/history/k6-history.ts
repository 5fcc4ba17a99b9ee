/**
 * `paystorm check FILE` on k6 output: recognises the file by its content (k6's --out json,
 * plain or gzipped; a summary export is refused), converts it (k6.ts) and writes the
 * history beside it, in `<file without .json/.gz>.paystorm/history.bin.gz` (the encoding runs
 * write: a million exchanges are about 1 GB as NDJSON), where the reports then go too.
 * Nothing is written when the file is refused.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { makeDirsSync } from './dirs.ts';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { convertK6, k6FileKind, summaryExportError } from './k6.ts';
import { HISTORY_FILE } from './format.ts';
import { HistoryWriter } from './writer.ts';

export interface K6History {
  /** The converted history (history.bin.gz). */
  historyPath: string;
  /** Where reports go (null: --no-write, the history is in a temp dir removed by cleanup). */
  reportDir: string | null;
  cleanup: () => void;
}

/** The run folder of a k6 output file: `run.k6.json.gz` -> `run.k6.paystorm`. */
export function k6RunDirOf(file: string): string {
  const base = basename(file).replace(/\.gz$/i, '').replace(/\.(nd)?json$/i, '');
  return join(dirname(file), `${base || 'k6'}.paystorm`);
}

/** Null when the path is not k6 output (a paystorm run or history: judged as before). */
export async function k6HistoryOf(path: string, opts: { write: boolean; onWarning?: (m: string) => void }): Promise<K6History | null> {
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
  const conv = await convertK6(path, { onWarning: opts.onWarning });
  const dir = opts.write ? k6RunDirOf(path) : mkdtempSync(join(tmpdir(), 'paystorm-k6-'));
  makeDirsSync(dir);
  const historyPath = join(dir, HISTORY_FILE);
  // The writer numbers exchanges in order, as the converter did.
  const writer = new HistoryWriter({ path: historyPath });
  for (const r of conv.records) {
    writer.write(r);
    if (writer.needsDrain) await writer.drained();
  }
  await writer.close();
  return { historyPath, reportDir: opts.write ? dir : null, cleanup: () => (opts.write ? undefined : rmSync(dir, { recursive: true, force: true })) };
}
