/** The oracle: invariants over a run's history, thresholds, verdict and summary; `check` does it all in one call. */
export type { Invariant, InvariantCheck, InvariantOutcome, OracleContext, OutcomeStatus } from './types.ts';
export { INVARIANTS } from './invariants/index.ts';
export { judge, type Judgement, type JudgeOptions, type Unjudged } from './judge.ts';
export { parseThreshold, evaluateThreshold, evaluateThresholds, mergeThresholds, ThresholdError, type Threshold } from './thresholds.ts';
export { verdictOf, unexercisedDeclaredRules, type Verdict, type VerdictInput } from './verdict.ts';
export { buildSummary, type SummaryInput } from './summary.ts';
export { Ledger, type PaymentFacts } from './ledger.ts';
export { createContext } from './context.ts';
export { check, checkResultOf, checkUnjudged, CheckFolds, type CheckOptions, type CheckResult } from './check.ts';
