/** Tests read a run's history whole, whatever its encoding, through the project's own reader. */
import { statSync } from 'node:fs';
import { historyFileIn, readHistory, type HistoryRecord } from '../src/history/index.ts';

/** The history file of a run directory, or the path itself when it is a file. */
export function historyPathOf(pathOrDir: string): string {
  if (!statSync(pathOrDir).isDirectory()) return pathOrDir;
  const p = historyFileIn(pathOrDir);
  if (p === null) throw new Error(`${pathOrDir} holds no history`);
  return p;
}

/** Every record; a history cut short fails the test (a finished run must be whole). */
export async function historyRecords(pathOrDir: string): Promise<HistoryRecord[]> {
  const file = readHistory(historyPathOf(pathOrDir));
  const out: HistoryRecord[] = [];
  for await (const r of file) out.push(r);
  if (file.stats.truncated) throw new Error(`history ends in a cut record: ${file.stats.truncated.text}`);
  return out;
}

/** The history as NDJSON text (one record a line, as `paystorm history` prints it). */
export async function historyText(pathOrDir: string): Promise<string> {
  return (await historyRecords(pathOrDir)).map((r) => JSON.stringify(r) + '\n').join('');
}
