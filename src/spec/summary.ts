/** summary.json, schema v1: the documented, versioned verdict of a run. */
import { z } from 'zod';

export const SUMMARY_VERSION = 1 as const;
export const INVARIANT_STATUSES = ['pass', 'fail', 'not-exercised', 'error'] as const;
export type InvariantStatus = (typeof INVARIANT_STATUSES)[number];

export const evidenceSchema = z.object({
  message: z.string(),
  /** request_id values of the exchanges involved. */
  requestIds: z.array(z.string()).optional(),
  /** Sequence numbers of the history records involved. */
  seqs: z.array(z.number()).optional(),
  /** Run-monotonic ms. */
  times: z.array(z.number()).optional(),
  keys: z.array(z.string()).optional(),
  idemKeys: z.array(z.string()).optional(),
  paymentIds: z.array(z.string()).optional(),
  /** Trimmed, redacted bodies. */
  bodies: z.array(z.string()).optional(),
  /** The example's repro script, relative to the run directory (`repro/<invariant>-<n>.sh`; docs/repro.md). */
  repro: z.string().optional(),
});
export type Evidence = z.infer<typeof evidenceSchema>;

export const invariantResultSchema = z.object({
  id: z.string(),
  title: z.string(),
  rules: z.array(z.string()),
  status: z.enum(INVARIANT_STATUSES),
  violations: z.number(),
  /** Up to a few violations, with evidence. */
  examples: z.array(evidenceSchema),
  /** Why it was not exercised, or a one-line summary. */
  reason: z.string().nullable(),
  /** Stack of the exception when status is error. */
  error: z.string().nullable(),
  /** How many things it checked. */
  checked: z.number(),
});
export type InvariantResult = z.infer<typeof invariantResultSchema>;

export const thresholdResultSchema = z.object({
  metric: z.string(),
  expr: z.string(),
  value: z.number().nullable(),
  ok: z.boolean(),
  /** The scenarios whose traffic it judged, for a scenario's default threshold; absent: the whole run. */
  scope: z.array(z.string()).optional(),
});
export type ThresholdResult = z.infer<typeof thresholdResultSchema>;

/**
 * A run-level fact the oracle learned, not a pass or fail of its own: which refund path the
 * service serves, the server clock's offset, an answer the spec allows but that is lenient
 * (an observation), a plain-language diagnosis such as an unreachable processor. Reports show
 * them; the verdict never depends on them.
 */
export const FINDING_LEVELS = ['info', 'observation', 'warning'] as const;
export const findingSchema = z.object({
  /** Stable id, e.g. `refund-path`, `server-clock-offset`; several invariants may report one id (kept once). */
  id: z.string(),
  level: z.enum(FINDING_LEVELS),
  /** One plain sentence. */
  text: z.string(),
  rules: z.array(z.string()).optional(),
  evidence: evidenceSchema.optional(),
});
export type Finding = z.infer<typeof findingSchema>;

/** The rate-limit probe's window edge and the bursts across it, from the history (the `rl-edge` and `rl-burst` groups). */
export const rateBoundarySchema = z.object({
  key: z.string(),
  /** The limit and window the run checked (run record `rateLimit`, learned from the target). */
  limit: z.number(),
  windowMs: z.number(),
  /** Why that limit and window: e.g. the embedded service's scaled limit rather than the spec's 500 / 60 s. */
  why: z.string(),
  /** The window edge on the run clock, exact to one probe: between the last refused probe's start and the first admitted one's end (ms). */
  edge: z.object({ from: z.number(), to: z.number(), afterOpenMin: z.number(), afterOpenMax: z.number() }).nullable(),
  /** The bursts across the next boundary: requests admitted (not 429) before and after it, and how many were sent. */
  burst: z.object({ boundary: z.number(), before: z.number(), after: z.number(), sent: z.number(), spanMs: z.number() }).nullable(),
  /** The burst in time bins (run-clock ms, bin start): admitted and refused requests, for a small plot. */
  bins: z.array(z.object({ t: z.number(), admitted: z.number(), refused: z.number() })),
  binMs: z.number(),
  /** One sentence, e.g. `window edge at 3010-3012 ms; 119 + 120 admitted across it`. */
  text: z.string(),
});
export type RateBoundary = z.infer<typeof rateBoundarySchema>;

/** One executor's load: asked-for rate and what it achieved. */
export const loadResultSchema = z.object({
  scenario: z.string(),
  executor: z.string(),
  /** Planned iterations per second (mean over the plan), or null for closed models. */
  targetRate: z.number().nullable(),
  /** Iterations started per second of its run. */
  achievedRate: z.number(),
  iterations: z.number(),
  dropped: z.number(),
  tStart: z.number(),
  tEnd: z.number(),
});
export type LoadResult = z.infer<typeof loadResultSchema>;

/**
 * How far a selected scenario ran, from the history (src/history/scenario-progress.ts):
 * `finished` ran to its end; `cut-short` started but was stopped before its end (an interrupt,
 * a cap, its own error, a shard that ended early); `not-started` never started (nothing of it is
 * in the history: the run stopped first); `started` it ran, but the history cannot tell whether
 * to its end (k6 output without an end marker, a merge of shards written before this field).
 */
export const SCENARIO_STATUSES = ['finished', 'cut-short', 'not-started', 'started'] as const;
export type ScenarioStatus = (typeof SCENARIO_STATUSES)[number];

export const scenarioSummarySchema = z.object({
  name: z.string(),
  rules: z.array(z.string()),
  /** How far it ran (above). Absent in summaries written before it existed, and when built without the history. */
  status: z.enum(SCENARIO_STATUSES).optional(),
  /** Exchanges it recorded. */
  requests: z.number().optional(),
  /** Its first request's start and last answer's end, run-clock ms; absent when it recorded none. */
  tStart: z.number().optional(),
  tEnd: z.number().optional(),
});
export type ScenarioSummary = z.infer<typeof scenarioSummarySchema>;

export const summarySchema = z.object({
  version: z.literal(SUMMARY_VERSION),
  runId: z.string(),
  verdict: z.enum(['pass', 'fail']),
  /** The verdict's reason in one sentence (`failed: 2 invariants violated (…)`, `failed: RL-2 was not exercised because …`, `passed: …`). Absent in summaries written before it existed. */
  reason: z.string().optional(),
  /** False when the run was interrupted or stopped by a cap. */
  complete: z.boolean(),
  /**
   * True in the verdict so far of a run still going (`paystorm run --snapshot-every`): judged on the
   * history as it stood at `snapshotAtMs` (run time, ms); the final reports replace it. Absent otherwise.
   */
  snapshot: z.boolean().optional(),
  snapshotAtMs: z.number().optional(),
  exitCode: z.number(),
  target: z.object({ url: z.string(), embedded: z.boolean(), presentation: z.enum(['A', 'B']).nullable() }),
  started_at: z.string(),
  duration_ms: z.number(),
  /** The selected scenarios, each with how far it ran (`status`, optional: added later). */
  scenarios: z.array(scenarioSummarySchema),
  invariants: z.array(invariantResultSchema),
  thresholds: z.array(thresholdResultSchema),
  faults: z.array(
    z.object({ proxy: z.string(), link: z.string(), type: z.string(), name: z.string(), stream: z.string(), toxicity: z.number(), attributes: z.record(z.string(), z.any()), tStart: z.number(), tEnd: z.number() }),
  ),
  metrics: z.record(z.string(), z.any()),
  keys: z.array(z.object({ label: z.string(), merchant: z.string(), mode: z.string() })),
  /** What the oracle learned about the run (src/spec/summary.ts `findingSchema`), most severe first. */
  findings: z.array(findingSchema).optional(),
  /** What the rate-limit probe measured at a window edge (src/oracle/lib/rate-boundary.ts); absent when the run had no edge probe. */
  rateBoundary: rateBoundarySchema.optional(),
  /** The load each executor was asked for and what it achieved (from the end record's `load`). */
  load: z.array(loadResultSchema).optional(),
  /** The comparison with a baseline (`--baseline`, `paystorm compare`): side-by-side rows, regression thresholds with their confidence, CDF plot points (src/oracle/baseline.ts `Comparison`). */
  comparison: z.record(z.string(), z.any()).optional(),
  /** Per-window drift of the run (src/oracle/trend.ts `Drift`): series with Mann-Kendall and Sen's slope, drift thresholds; absent for runs of fewer than 3 windows without drift thresholds. */
  drift: z.record(z.string(), z.any()).optional(),
});
export type Summary = z.infer<typeof summarySchema>;
