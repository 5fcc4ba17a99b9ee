/** Messages between a run and its live judge's thread (src/cli/live/judge-worker.ts). */
import type { Evidence, Summary } from '../../spec/index.ts';
import type { Baseline } from '../../oracle/baseline.ts';

/** What `check` is given, as data a thread can be sent. */
export interface JudgeWorkerOptions {
  thresholds: string[];
  /** Default thresholds by scenario name, for a run record that names a scenario without them. */
  scenarioThresholds: Record<string, string[]>;
  baseline?: { baseline: Baseline; source: string };
  trendWindowMs?: number;
}

export interface JudgeWorkerData {
  /** `live`: follow the file as it is written, until told it is closed; `snapshot`: judge the file as it stands. */
  mode: 'live' | 'snapshot';
  historyPath: string;
  options: JudgeWorkerOptions;
  /** How often a followed file is looked at for more records (ms). */
  pollMs?: number;
}

export type ToJudge = { close: { interrupted: boolean } };

export interface JudgedViolation {
  invariant: string;
  rules: string[];
  evidence: Evidence;
}

export type FromJudge = { ready: true } | { violation: JudgedViolation } | { warning: string } | { summary: Summary } | { error: string; exitCode: number | null };
