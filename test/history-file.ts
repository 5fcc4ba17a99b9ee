/** Tests read a run's history whole: its records, or its NDJSON text, whatever encoding it has. */
import { readFileSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { BINARY_MAGIC, RecordDecoder } from '../src/history/codec.ts';
import { historyFileIn } from '../src/history/format.ts';
import type { HistoryRecord } from '../src/history/index.ts';

/** The history file of a run directory, or the path itself when it is a file. */
export function historyPathOf(pathOrDir: string): string {
  if (!statSync(pathOrDir).isDirectory()) return pathOrDir;
  const p = historyFileIn(pathOrDir);
  if (p === null) throw new Error(`${pathOrDir} holds no history`);
  return p;
}

export function historyRecords(pathOrDir: string): HistoryRecord[] {
  let bytes = readFileSync(historyPathOf(pathOrDir));
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  if (bytes.subarray(0, BINARY_MAGIC.length).equals(BINARY_MAGIC)) {
    const out: unknown[] = [];
    const end = new RecordDecoder().frames(bytes, BINARY_MAGIC.length, bytes.length, out);
    if (end !== bytes.length) throw new Error(`history ends in a cut record (${bytes.length - end} bytes)`);
    return out as HistoryRecord[];
  }
  return bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as HistoryRecord);
}

/** The history as NDJSON text (one record a line, as `paystorm history` prints it). */
export function historyText(pathOrDir: string): string {
  return historyRecords(pathOrDir).map((r) => JSON.stringify(r) + '\n').join('');
}
