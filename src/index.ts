/**
 * paystorm's public API: what `import ... from 'paystorm'` gives a project that installed it.
 * The types of a scenario file (the `Scenario` shape, its context and client), of
 * `paystorm.config.json` (`RunConfig`) and of `summary.json` (`Summary`), and at run time the
 * schema a program reads summary.json with and the exit codes. The build compiles this module
 * into dist/index.js and its declarations into dist/types (scripts/build.mjs --package).
 * Everything here is a promise to users: keep it stable.
 */

// A scenario file (docs/own-scenarios.md).
export type {
  Scenario,
  ScenarioContext,
  ScenarioEnv,
  TargetInfo,
  ApiClient,
  KeyHandle,
  CallOptions,
  CreateOptions,
  RetrieveOptions,
  RawRequest,
  ListParams,
  ExchangeResult,
  ExecutorSpec,
  ExecutorResult,
  ConstantArrivalRate,
  RampingArrivalRate,
  ConstantVus,
  PerVuIterations,
  BurstSpec,
  FaultRunInfo,
} from './spec/scenario.ts';
export type { PaymentInput, InputShape } from './spec/inputs.ts';
export type { CanonicalPayment, Presentation } from './spec/payment.ts';
export type { CardOutcome, CardsFile } from './spec/cards.ts';
export type { ThreeDsResult } from './spec/sandbox.ts';
export type { FaultStep, FaultType, FaultStream } from './spec/faults.ts';
export type { ExchangeRecord, KeyInfo } from './history/schema.ts';

// paystorm.config.json (its JSON Schema: schema/config.json).
export type { RunConfig } from './cli/config.ts';

// summary.json (docs/reports.md).
export { summarySchema, SUMMARY_VERSION } from './spec/summary.ts';
export type { Summary, InvariantResult, InvariantStatus, ThresholdResult, Finding, Evidence, ScenarioSummary, LoadResult, RateBoundary } from './spec/summary.ts';

// Exit codes of every command.
export { EXIT } from './spec/exit-codes.ts';
export type { ExitCode } from './spec/exit-codes.ts';
