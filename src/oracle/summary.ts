/** summary.json (schema v1, src/spec/summary.ts) from a judged run. */
import { SUMMARY_VERSION, type EndRecord, type FaultRecord, type Finding, type InvariantResult, type RunMetrics, type RunRecord, type Summary, type ThresholdResult } from '../spec/index.ts';

export interface SummaryInput {
  run: RunRecord | null;
  end: EndRecord | null;
  invariants: InvariantResult[];
  thresholds: ThresholdResult[];
  metrics: RunMetrics | Record<string, unknown> | null;
  faults: readonly FaultRecord[];
  /** When the run started (defaults to the run record's wall clock). */
  startedAt?: Date | number | string;
  exitCode: number;
  verdict: 'pass' | 'fail';
  /** What the oracle learned about the run (judge's findings). */
  findings?: readonly Finding[];
}

export function buildSummary(input: SummaryInput): Summary {
  const { run, end, metrics } = input;
  const started = input.startedAt ?? run?.wall ?? 0;
  const startedIso = new Date(typeof started === 'string' ? Date.parse(started) : started instanceof Date ? started.getTime() : started).toISOString();
  const durationMs = end?.tEnd ?? (metrics && typeof (metrics as RunMetrics).durationMs === 'number' ? (metrics as RunMetrics).durationMs : 0);
  return {
    version: SUMMARY_VERSION,
    runId: run?.runId ?? 'unknown',
    verdict: input.verdict,
    // A history with no end record was cut short.
    complete: end?.complete ?? false,
    exitCode: input.exitCode,
    target: run?.target ?? { url: 'unknown', embedded: false, presentation: null },
    started_at: startedIso,
    duration_ms: durationMs,
    scenarios: (run?.scenarios ?? []).map((s) => ({ name: s.name, rules: [...s.rules] })),
    invariants: input.invariants,
    thresholds: input.thresholds,
    faults: input.faults.map((f) => ({
      proxy: f.proxy,
      link: f.link,
      type: f.toxic.type,
      name: f.toxic.name,
      stream: f.toxic.stream,
      toxicity: f.toxic.toxicity,
      attributes: f.toxic.attributes,
      tStart: f.tStart,
      tEnd: f.tEnd,
    })),
    metrics: (metrics ?? {}) as Record<string, unknown>,
    keys: (run?.keys ?? []).map((k) => ({ label: k.label, merchant: k.merchant, mode: k.mode })),
    findings: [...(input.findings ?? [])],
  };
}
