import type { HistoryRecord, RunRecord } from '../../../src/history/index.ts';

/** One invariant's two histories: one that keeps its rule, one that breaks it. */
export interface InvariantCase {
  keeps: () => HistoryRecord[];
  violates: () => HistoryRecord[];
  /** Run record overrides for both. */
  run?: Partial<RunRecord>;
  /** Sequence numbers the first example's evidence must name. */
  seqs?: number[];
  /** The first example's message must match. */
  message?: RegExp;
}
export type CaseTable = Record<string, InvariantCase>;
