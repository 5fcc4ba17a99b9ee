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

export const summarySchema = z.object({
  version: z.literal(SUMMARY_VERSION),
  runId: z.string(),
  verdict: z.enum(['pass', 'fail']),
  /** False when the run was interrupted or stopped by a cap. */
  complete: z.boolean(),
  exitCode: z.number(),
  target: z.object({ url: z.string(), embedded: z.boolean(), presentation: z.enum(['A', 'B']).nullable() }),
  started_at: z.string(),
  duration_ms: z.number(),
  scenarios: z.array(z.object({ name: z.string(), rules: z.array(z.string()) })),
  invariants: z.array(invariantResultSchema),
  thresholds: z.array(thresholdResultSchema),
  faults: z.array(
    z.object({ proxy: z.string(), link: z.string(), type: z.string(), name: z.string(), stream: z.string(), toxicity: z.number(), attributes: z.record(z.string(), z.any()), tStart: z.number(), tEnd: z.number() }),
  ),
  metrics: z.record(z.string(), z.any()),
  keys: z.array(z.object({ label: z.string(), merchant: z.string(), mode: z.string() })),
  /** What the oracle learned about the run (src/spec/summary.ts `findingSchema`), most severe first. */
  findings: z.array(findingSchema).optional(),
});
export type Summary = z.infer<typeof summarySchema>;
