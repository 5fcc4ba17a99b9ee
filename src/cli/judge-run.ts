/**
 * Judges a saved history exactly as a live run is judged: the oracle's `check` over the
 * history file. `paystorm run`, `check` and `report` go through here, so a saved run and a live
 * one agree (`merge` judges on two threads with the same pieces of `check`: merge-judging.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, PaystormError, type Summary } from '../spec/index.ts';
import { HISTORY_FILES, historyFileIn, notAHistory, readHistory } from '../history/index.ts';
import { check, type CheckOptions } from '../oracle/index.ts';

export interface JudgeRunOptions extends CheckOptions {
  /** Told about a tolerated truncated last line (default: stderr). */
  onWarning?: (message: string) => void;
}

/** `reports/<run-id>` or a history file -> the history file's path, once its start looks like a history. */
export function historyFileOf(pathArg: string): string {
  if (!existsSync(pathArg)) throw new PaystormError(`no run directory or history file at ${pathArg}. Pass reports/<run-id> or a history file (history.bin.gz, history.ndjson).`, EXIT.usage);
  const p = statSync(pathArg).isDirectory() ? historyFileIn(pathArg) : pathArg;
  if (p === null) throw new PaystormError(`${pathArg} holds no history (${HISTORY_FILES.join(', ')}). Pass the directory of a paystorm run (reports/<run-id>).`, EXIT.usage);
  const wrong = notAHistory(p);
  if (wrong) throw new PaystormError(`${p}: ${wrong}`, EXIT.usage, 'history');
  return p;
}

/** Judges records already in hand (k6 output as src/history/k6-history.ts reads it, a merge's records), as judgeHistory judges a file's. */
export async function judgeRecords(records: Parameters<typeof check>[0], opts: CheckOptions = {}): Promise<Summary> {
  return (await check(records, opts)).summary;
}

export async function judgeHistory(historyPath: string, opts: JudgeRunOptions = {}): Promise<Summary> {
  const { onWarning, ...checkOpts } = opts;
  const warn = onWarning ?? ((m: string) => process.stderr.write(`paystorm: ${m}\n`));
  return (await check(readHistory(historyPath, { onWarning: warn }), checkOpts)).summary;
}
