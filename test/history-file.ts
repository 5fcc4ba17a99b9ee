/** Tests read a run's history whole, whatever its encoding, through the project's own reader. */
import { statSync } from 'node:fs';
import { HISTORY_VERSION, historyFileIn, readHistory, type ExchangeRecord, type HistoryRecord } from '../src/history/index.ts';

/** A valid exchange record with nothing in it (a 200 retrieve lasting 1 ms from `tStart`), overridden by `p`. */
export function exchangeRecord(p: Partial<ExchangeRecord> = {}): ExchangeRecord {
  const tStart = p.tStart ?? 0;
  return {
    v: HISTORY_VERSION,
    kind: 'exchange',
    seq: 0,
    scenario: 's',
    op: 'retrieve',
    key: 'k1',
    sent: {},
    tIntended: tStart,
    tStart,
    tEnd: tStart + 1,
    wall: 0,
    status: 200,
    contentType: 'application/json',
    rate: null,
    retryAfter: null,
    json: true,
    error: null,
    payment: null,
    refund: null,
    list: null,
    failure: null,
    ...p,
  };
}

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
