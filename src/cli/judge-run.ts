/**
 * Judges a saved history exactly as a live run is judged: the oracle's `check` over the
 * history file. `paystorm run`, `check` and `report` go through here, so a saved run and a live
 * one agree (`merge` judges on two threads with the same pieces of `check`: merge-judging.ts).
 * `check` and `report` judge on a thread of their own, within the judge's memory limit
 * (live/judge-memory.ts): a history too long for it gets a verdict of its metrics and thresholds,
 * every invariant `error`, and the fix on stderr, instead of a crash.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EXIT, PaystormError, type Summary } from '../spec/index.ts';
import { HISTORY_FILES, historyFileIn, notAHistory, readHistory } from '../history/index.ts';
import { check, checkUnjudged, type CheckOptions, type Unjudged } from '../oracle/index.ts';
import { judgeFileOnThread, K6FollowingJudge, scenarioThresholdsOf } from './live/live-judge.ts';
import { k6SourceOf, type K6Source } from '../history/k6-history.ts';
import { JudgeOutOfMemory } from './live/judge-memory.ts';
import { judgeProgressLine, k6ReadProgress, type JudgeProgressReport } from './live/judge-progress.ts';
import { SCENARIOS } from '../../scenarios/index.ts';

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

/** The records' metrics and thresholds with no invariant judged (the judge ran out of memory: `why` says so and how to judge them), the reason on stderr. */
export async function unjudgedRecords(records: Parameters<typeof check>[0], why: Unjudged, opts: CheckOptions = {}, stderr: (text: string) => void = (t) => process.stderr.write(t)): Promise<Summary> {
  stderr(`paystorm: ${why.full}\n`);
  return (await checkUnjudged(records, why, opts)).summary;
}

export async function judgeHistory(historyPath: string, opts: JudgeRunOptions = {}): Promise<Summary> {
  const { onWarning, ...checkOpts } = opts;
  const warn = onWarning ?? ((m: string) => process.stderr.write(`paystorm: ${m}\n`));
  return (await check(readHistory(historyPath, { onWarning: warn }), checkOpts)).summary;
}

/** What `check` and `report` judge with, as data a judge thread can be sent (scenario defaults from the code). */
export interface FileJudging {
  thresholds?: readonly string[];
  baseline?: CheckOptions['baseline'];
  trendWindowMs?: number;
  /** --judge-memory (MB); default judge-memory.ts's. */
  memoryMb?: number;
  /** How often a long judgement prints how far it got (ms; default judge-progress.ts JUDGE_PROGRESS_EVERY_MS). */
  progressEveryMs?: number;
}

/**
 * A history file judged on a judge thread (`check`, `report`): the same `check` as judgeHistory.
 * Out of memory, the metrics and thresholds are judged here and every invariant is `error`.
 */
export async function judgeHistoryFile(historyPath: string, judging: FileJudging, stderr: (text: string) => void = (t) => process.stderr.write(t)): Promise<Summary> {
  const options = {
    thresholds: [...(judging.thresholds ?? [])],
    scenarioThresholds: scenarioThresholdsOf(SCENARIOS),
    ...(judging.baseline ? { baseline: judging.baseline } : {}),
    ...(judging.trendWindowMs !== undefined ? { trendWindowMs: judging.trendWindowMs } : {}),
  };
  try {
    const onProgress = (p: JudgeProgressReport) => stderr(`paystorm: ${judgeProgressLine(p, basename(historyPath))}\n`);
    return await judgeFileOnThread(historyPath, options, judging.memoryMb, (m) => stderr(`paystorm: ${m}\n`), { onProgress, ...(judging.progressEveryMs !== undefined ? { everyMs: judging.progressEveryMs } : {}) });
  } catch (e) {
    if (!(e instanceof JudgeOutOfMemory)) throw e;
    const scenarioThresholds = (name: string) => (Object.hasOwn(options.scenarioThresholds, name) ? options.scenarioThresholds[name] : []);
    return unjudgedRecords(readHistory(historyPath, { onWarning: () => {} }), e.unjudged(historyPath), { ...options, scenarioThresholds }, stderr);
  }
}

/**
 * k6 output judged as it is read (src/history/k6-history.ts): on a judge thread while the file
 * is read, when the reader can foresee the run record and the order; else after the read, here.
 * A judge thread out of memory leaves the metrics and thresholds judged here, every invariant
 * `error` (as judgeHistoryFile does for a history file). null: the file is not k6 output.
 */
export async function judgeK6Output(
  path: string,
  judging: CheckOptions,
  opts: { write: boolean; memoryMb?: number; stderr?: (text: string) => void },
): Promise<{ k6: K6Source; summary: Summary } | null> {
  const stderr = opts.stderr ?? ((t: string) => void process.stderr.write(t));
  const following = new K6FollowingJudge(path, judging, opts.memoryMb);
  let k6: K6Source | null = null;
  try {
    k6 = await k6SourceOf(path, { write: opts.write, onWarning: (m) => stderr(`paystorm: ${m}\n`), follower: following, onRead: k6ReadProgress(path) });
  } finally {
    // Judged here after all (not k6 output, or refused): the thread is not needed.
    if (!k6) await following.cancel();
  }
  if (!k6) return null;
  const summary = (await following.summary()) ?? (following.outOfMemory ? await unjudgedRecords(k6.records, following.outOfMemory.unjudged(path), judging, stderr) : await judgeRecords(k6.records, judging));
  return { k6, summary };
}
