/** Messages between a run and its live judge's thread (src/cli/live/judge-worker.ts). */
import type { Evidence, Summary } from '../../spec/index.ts';
import type { Baseline } from '../../oracle/baseline.ts';
import type { Judgement } from '../../oracle/judge.ts';
import type { EndRecord, RunRecord } from '../../history/index.ts';
import type { JudgeProgressReport } from './judge-progress.ts';

/** What `check` is given, as data a thread can be sent. */
export interface JudgeWorkerOptions {
  thresholds: string[];
  /** Default thresholds by scenario name, for a run record that names a scenario without them. */
  scenarioThresholds: Record<string, string[]>;
  baseline?: { baseline: Baseline; source: string };
  trendWindowMs?: number;
}

export interface JudgeWorkerData {
  /**
   * `live`: follow the file as it is written, until told it is closed; `snapshot`: judge the file
   * as it stands; `k6`: judge the exchanges of k6 output the main thread sends as it reads the
   * file (`historyPath` is that file, named in errors); `merge`: follow the merged history
   * `paystorm merge` writes, once told its path (`follow`), until told it is closed; `file`: judge
   * the file as it stands at full priority (`paystorm check`, `report`).
   */
  mode: 'live' | 'snapshot' | 'k6' | 'merge' | 'file';
  historyPath: string;
  options: JudgeWorkerOptions;
  /** How often a followed file is looked at for more records (ms). */
  pollMs?: number;
  /** The thread's heap limit (MB; judge-memory.ts): default three quarters of the machine's memory. */
  memoryMb?: number;
  /** `file`: how often the thread says how far it got (judge-progress.ts; default JUDGE_PROGRESS_EVERY_MS). */
  progressEveryMs?: number;
  /** `file`: records read before the file's length is foretold against the memory limit (judge-memory.ts JudgeFileForecast). */
  forecastAfter?: number;
  /** `live`: hold off reading while the flag (load-pacer.ts) is 1, at most `maxHeldMs` behind the writer. */
  hold?: { flag: Int32Array; maxHeldMs: number };
}

/** A batch of k6 exchanges in start order: each record's text in UTF-8 (the literal k6 wrote, unescaped) at bytes[start, end), from line `line`. */
export interface K6ExchangeBatch {
  bytes: Uint8Array;
  /** start, end, line per exchange. */
  bounds: Int32Array;
  count: number;
}

export type ToJudge =
  /** The followed file is closed; `interrupted` unset: as its end record says (a merge's shards may have been). */
  | { close: { interrupted?: boolean } }
  | { k6start: { run: RunRecord; originMs: number } }
  | { k6exchanges: K6ExchangeBatch }
  | { k6finish: { facts: RunRecord['facts']; end: EndRecord } }
  | { follow: { historyPath: string } }
  /** `live`: the verdict so far, over the records read so far (check.ts InterimCheck), for a snapshot. */
  | { snapshot: { id: number } };

export interface JudgedViolation {
  invariant: string;
  rules: string[];
  evidence: Evidence;
}

/** `recycle`: a k6 batch decoded, its buffers handed back for the next (fresh memory costs page faults). `judgement`: the k6 mode's answer (the invariants only; the main thread folds the rest, check.ts CheckFolds). */
export type FromJudge =
  | { ready: true }
  /** The verdict so far asked for by `snapshot` (null: no record read yet, or the end record read). */
  | { snapshot: { id: number; summary: Summary | null } }
  | { recycle: K6ExchangeBatch }
  | { violation: JudgedViolation }
  | { warning: string }
  /** `file`: how far the judging got (judge-progress.ts). */
  | { progress: JudgeProgressReport }
  | { summary: Summary }
  | { judgement: Judgement }
  | { error: string; exitCode: number | null };
