/**
 * The scenario API: what a scenario script sees. Scenarios (scenarios/*.ts) are
 * plain objects implementing `Scenario`; the engine builds the `ScenarioContext`.
 * Users write their own scenarios against this file, so keep it stable.
 */
import type { CardOutcome } from './cards.ts';
import type { ExchangeRecord, KeyInfo } from '../history/schema.ts';
import type { PaymentInput, InputShape } from './inputs.ts';
import type { CanonicalPayment } from './payment.ts';
import type { Presentation } from './payment.ts';
import type { ThreeDsResult } from './sandbox.ts';
import type { FaultStep } from './faults.ts';

// ---------------------------------------------------------------- executors

/** Open model: iterations start on a clock whatever the latency; late starts are measured from the intended start. */
export interface ConstantArrivalRate {
  executor: 'constant-arrival-rate';
  /** Iterations per second. */
  rate: number;
  durationMs: number;
  /** Iterations allowed in flight at once; an iteration due with none free is dropped (counted). */
  maxInFlight: number;
}
export interface RampingArrivalRate {
  executor: 'ramping-arrival-rate';
  startRate: number;
  /** Each stage moves the rate linearly to `target` over `durationMs`. */
  stages: { target: number; durationMs: number }[];
  maxInFlight: number;
}
/** Closed model: N virtual users loop for a duration. */
export interface ConstantVus {
  executor: 'constant-vus';
  vus: number;
  durationMs: number;
}
/** Closed model: each of N virtual users runs `iterations` iterations. */
export interface PerVuIterations {
  executor: 'per-vu-iterations';
  vus: number;
  iterations: number;
  maxDurationMs: number;
}
export type ExecutorSpec = ConstantArrivalRate | RampingArrivalRate | ConstantVus | PerVuIterations;

export interface ExecutorResult {
  iterations: number;
  dropped: number;
  /** Iterations that threw (their exchanges are still recorded). */
  errors: number;
  stoppedBy: 'done' | 'cap' | 'abort';
}

/** Raw-rate burst (autocannon): N requests as fast as possible, aligned to an instant. */
export interface BurstSpec {
  key: KeyHandle;
  /** Requests in all. */
  amount: number;
  connections: number;
  method: 'GET' | 'POST';
  path: string;
  /** Wall-clock epoch ms to start at (e.g. just before a window boundary); omitted = now. */
  startAtWall?: number;
  /** Sent as-is for POST; each request gets a fresh Idempotency-Key. */
  body?: unknown;
  group?: string;
}

// ---------------------------------------------------------------- client

export interface KeyHandle extends KeyInfo {
  /** Opaque index into the engine's secret store: scenarios never see secrets. */
  readonly index: number;
}

export interface CallOptions {
  /** Reuse this Idempotency-Key; otherwise a fresh one is generated. */
  idemKey?: string;
  /** Send no Idempotency-Key header (IDEM-1 probes). */
  omitIdemKey?: boolean;
  /** Group exchanges one probe judges together (e.g. `idem-race-3`). */
  group?: string;
  /** Per-request time-out in ms (default from the run). */
  timeoutMs?: number;
  /** Client retries on 503/api_error/time-out with the SAME Idempotency-Key, exponential backoff (FT-3); default 0. */
  retries?: number;
  /** Intended start (run-monotonic ms) for open-model iterations; defaults to the actual start. */
  tIntended?: number;
  /**
   * Time (ms) the call spent in paystorm's own waits before it was sent: pacing (a key's shared
   * budget under its rate limit), or a run's first refund waiting for the refund-path discovery.
   * It moves the intended start later by as much: a wait the client chose is not the service's
   * latency, only a wait the service caused is.
   */
  pacedMs?: number;
  /**
   * The payment a sandbox-driver call (`complete3ds`, `submitHosted`) acts on, recorded as
   * `sent.paymentId` so the oracle can tie the page to its payment (SM-4, SM-5, PAY-12).
   */
  paymentId?: string;
}

export interface RetrieveOptions extends CallOptions {
  /**
   * The id was made up so that no payment has it (PAY-17's probe): recorded as `sent.badInput`
   * (UNKNOWN_ID_PROBE), so the oracle judges whatever the answer is, not only a 404.
   */
  unknownId?: boolean;
}

export interface CreateOptions extends CallOptions {
  /** Which test card outcome the card stands for (recorded, never the number). */
  cardOutcome?: CardOutcome;
  /** Input shape to send; defaults to the target's presentation. */
  shape?: InputShape;
}

/** A recorded exchange plus the parsed body for the scenario's own branching. */
export interface ExchangeResult {
  record: ExchangeRecord;
  status: number;
  body: unknown;
  headers: Record<string, string>;
  payment: CanonicalPayment | null;
}

export interface RawRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  /** Headers as sent; `authorization` is computed from `auth` unless given here. */
  headers?: Record<string, string>;
  /** Raw body text (sent exactly), or an object (JSON-encoded). */
  body?: string | Record<string, unknown>;
  /** How to authenticate this probe. 'ok' uses the handle's key. */
  auth?: 'ok' | 'missing' | 'malformed' | 'basic' | 'basic-raw' | 'bad-prefix' | 'unknown-key';
}

export interface ListParams {
  limit?: number | string;
  starting_after?: string;
  status?: string;
  'created[gte]'?: number | string;
  'created[lt]'?: number | string;
}

/** The API as a scenario calls it. Every call is recorded in the history. */
export interface ApiClient {
  readonly key: KeyHandle;
  create(input: PaymentInput, opts?: CreateOptions): Promise<ExchangeResult>;
  createHosted(input: PaymentInput, opts?: CreateOptions): Promise<ExchangeResult>;
  retrieve(paymentId: string, opts?: RetrieveOptions): Promise<ExchangeResult>;
  list(params?: ListParams, opts?: CallOptions): Promise<ExchangeResult>;
  /** `path` 'payment' = POST /v1/payments/{id}/refund, 'refunds' = POST /v1/refunds. */
  refund(paymentId: string, body: { amount?: number }, opts?: CallOptions & { path?: 'payment' | 'refunds' }): Promise<ExchangeResult>;
  /** Sandbox driver: complete a 3DS challenge. */
  complete3ds(redirectUrl: string, result: ThreeDsResult, opts?: CallOptions): Promise<ExchangeResult>;
  /** Sandbox driver: submit the hosted page form. */
  submitHosted(redirectUrl: string, card: PaymentInput['card'] & object, opts?: CreateOptions): Promise<ExchangeResult>;
  /** A hand-made request (auth and bad-input probes); `sent` fields go to the record. */
  raw(req: RawRequest, opts?: CallOptions & { sent?: Partial<ExchangeRecord['sent']>; op?: ExchangeRecord['op'] }): Promise<ExchangeResult>;
  /**
   * Poll GET until the payment is terminal (or `until` says stop), honouring the
   * spec's polling guidance (1-3 s, scaled by the run's time scale) and a max wait.
   */
  pollUntilSettled(paymentId: string, opts?: CallOptions & { maxWaitMs?: number; until?: (p: CanonicalPayment) => boolean }): Promise<CanonicalPayment | null>;
}

// ---------------------------------------------------------------- context

export interface TargetInfo {
  url: string;
  embedded: boolean;
  presentation: Presentation;
  /** Learned from X-RateLimit-Limit (and the window from the reset edges); null until known. */
  rateLimit: { limit: number; windowMs: number } | null;
  /** Payments paystorm's presentation probe created before the run (src/client/detect.ts): in no exchange, but lists may show them. */
  probePayments?: readonly string[];
}

export interface ScenarioContext {
  readonly scenario: string;
  readonly target: TargetInfo;
  /** Keys of the run; live keys are present only with --allow-live or on the embedded target. */
  readonly keys: readonly KeyHandle[];
  /** Test-mode keys, for load. */
  readonly testKeys: readonly KeyHandle[];
  client(key: KeyHandle): ApiClient;
  /** Card numbers by outcome; a missing outcome is not exercised. */
  readonly cards: Partial<Record<CardOutcome, string>>;
  /** Runs an executor; `iteration` is called once per iteration with the VU number and iteration index. */
  execute(spec: ExecutorSpec, iteration: (vu: number, i: number, tIntended: number) => Promise<void>): Promise<ExecutorResult>;
  /** Autocannon-backed raw burst; every response is recorded. */
  burst(spec: BurstSpec): Promise<{ sent: number; statuses: Record<number, number> }>;
  /** Seeded random in [0,1). */
  random(): number;
  /** Run-monotonic ms. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Multiplies the target's own delays (embedded target); 1 for a real deployment. */
  readonly timeScale: number;
  /** Scenario duration requested by --duration, if any. */
  readonly durationMs?: number;
  /** Arrival rate requested by --rate, if any. */
  readonly rate?: number;
  /** Aborted on SIGINT or when a run cap is hit. */
  readonly signal: AbortSignal;
  log(message: string): void;
  /** Webhook receiver wiring, when the run has one. */
  readonly webhooks: {
    url: string;
    deliveries(): number;
    /** How long the target waits for the receiver's answer (its acknowledge time); default the spec's. */
    ackTimeoutMs?: number;
    /** WH-9: the declared longest wait for a retry (--webhook-retry-within; target time, unscaled), when declared. */
    retryWithinMs?: number;
    /** Events whose latest delivery the receiver did not answer 2xx (in time): retries still due. */
    awaitingRetry?(): number;
  } | null;
  /**
   * Writes a mid-run report snapshot (the run folder's summary.json and report.html with the
   * verdict so far, marked as a snapshot; as --snapshot-every does) so an operator sees trouble
   * early in a long run (soak). Optional: absent when the engine has no report.
   */
  snapshot?(label: string): Promise<void>;
  /** Proxies a fault step can act on in this run (steps on other proxies are skipped); absent: every proxy a schedule names. */
  readonly faultProxies?: readonly string[];
  /** The service's declared time-out for one processor call (ms), when known. */
  readonly upstreamTimeoutMs?: number;
  /**
   * A refund amount (minor units) the target's sandbox fails, so refund.failed can be caused, when
   * known: the spec designates none, so this is the embedded reference service's; absent elsewhere.
   */
  readonly refundFailAmount?: number;
  /** The bound (ms) within which the oracle expects a pending payment or refund to settle (SM-6, FT-2, REF-1), when the run set one. */
  readonly settleBoundMs?: number;
  /**
   * Says what the scenario is doing or waiting for, shown on the progress line until the next
   * phase (or for `ms`, when given): e.g. `ctx.phase?.('waiting for the rate window to reset', 2500)`.
   * `null` clears it. Optional: absent when the run shows no progress.
   */
  phase?(note: string | null, ms?: number): void;
}

/** What decides which rules a scenario can exercise in one run: a subset of the run record. */
export interface ScenarioEnv {
  presentation: Presentation | null;
  embedded: boolean;
  keys: readonly KeyInfo[];
  /** Test card outcomes the cards file provides. */
  cardOutcomes: readonly CardOutcome[];
  /** The webhook receiver, when the run has one: whether the target delivers to it, and the share it answers with a failure. */
  webhooks: { wired: boolean; failShare: number } | null;
  /** Proxies fault steps can act on (absent: every proxy a schedule names); a fault rule whose proxy is missing is not declared. */
  faultProxies?: readonly string[];
}

/** What a fault schedule may depend on. */
export interface FaultRunInfo {
  durationMs?: number;
  timeScale: number;
  embedded: boolean;
  /** The service's time-out for one processor call (ms), when declared (`--upstream-timeout`; embedded: its own): faults meant to make it time out are sized from it. */
  upstreamTimeoutMs?: number;
}

export interface Scenario {
  name: string;
  /** One line: what it probes. */
  description: string;
  /** Rule ids of rules.md it exercises (an invariant covering one of these must not end not-exercised). */
  rules: string[];
  /**
   * The rules it exercises in a given run, when that depends on the run's keys, cards,
   * presentation or webhook receiver (a missing card or a single key leaves some probes out).
   * The engine writes this, not `rules`, to the run record when present. Defaults to `rules`.
   */
  rulesFor?(env: ScenarioEnv): string[];
  /** Fault schedule the engine applies to the named proxies while the scenario runs (chaos). */
  faults?: {
    /** The schedule at full length. */
    schedule: FaultStep[];
    /** The schedule for this run (e.g. fitted into --duration); the engine and the scenario both call it. Defaults to `schedule`. */
    scheduleFor?(run: FaultRunInfo): FaultStep[];
  };
  /** Default thresholds in k6 syntax. */
  thresholds?: string[];
  /** Whether it is part of the default suite (`paystorm run` with no scenario names). */
  defaultSuite?: boolean;
  run(ctx: ScenarioContext): Promise<void>;
}

// ---------------------------------------------------------------- metrics

/** Latency distribution of one series, microsecond histogram encoded for exact merging. */
export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  /** hdr-histogram-js base64 encoding (microseconds). */
  hdr: string;
}

/** One second of the run. */
export interface TimelinePoint {
  /** Second since run start. */
  t: number;
  requests: number;
  s2xx: number;
  s4xx: number;
  s5xx: number;
  s429: number;
  failures: number;
  inFlight: number;
  /** Per operation p50/p99 latency in ms for requests that ended in this second. */
  latency: Record<string, { p50: number; p99: number; count: number }>;
}

export interface RateSample {
  /** Run-monotonic ms. */
  t: number;
  key: string;
  limit: number | null;
  remaining: number | null;
  reset: number | null;
  status: number;
}

export interface RunMetrics {
  requests: number;
  dropped: number;
  failures: number;
  durationMs: number;
  /** `op` -> outcome class ('2xx', '4xx', '5xx', '429', 'failure') -> latency. */
  latency: Record<string, Record<string, LatencySummary>>;
  timeline: TimelinePoint[];
  /** Rate-limit header samples per key, thinned to at most a few thousand points. */
  rate: RateSample[];
  /** paystorm's own trends (settle_time, settle_after_heal, webhook_lag), in ms. */
  trends: Record<string, Omit<LatencySummary, 'hdr'> & { hdr?: string }>;
}

/** The settle bound (SM-6, FT-2, REF-1) when a run sets none: "usually within seconds", made a number. */
export const DEFAULT_SETTLE_BOUND_MS = 30_000;

/**
 * A run's settle bound when `--settle-bound` is not given: the embedded service's delays shrink
 * with its time scale (at least 3 s), a remote target gets DEFAULT_SETTLE_BOUND_MS. The CLI sets
 * `ScenarioContext.settleBoundMs` from it; scenarios and the oracle read that.
 */
export function defaultSettleBoundMs(embedded: boolean, timeScale: number): number {
  return embedded ? Math.max(3_000, 60_000 * timeScale) : DEFAULT_SETTLE_BOUND_MS;
}
