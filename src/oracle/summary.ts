/** summary.json (schema v1, src/spec/summary.ts) from a judged run. */
import { SUMMARY_VERSION, type Finding, type InvariantResult, type LoadResult, type RateBoundary, type RunMetrics, type Summary, type ThresholdResult } from '../spec/index.ts';
import { stopPhrase, type EndRecord, type FaultRecord, type RunRecord, type ScenarioProgress } from '../history/index.ts';
import { limitWhy } from './lib/rate-boundary.ts';
import { scenarioRunFinding, unrunDeclaring } from './lib/scenario-runs.ts';

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
  /** The verdict's one-sentence reason (`verdictOf(...).reason`). */
  reason?: string;
  /** What the rate-limit probe measured (src/oracle/lib/rate-boundary.ts), when the run probed an edge. */
  rateBoundary?: RateBoundary | null;
  /**
   * How far each scenario got (judge's `scenarios`, from the history): `scenarios[].status`, a
   * `scenarios-not-finished` warning, and the reasons of invariants not exercised because the
   * scenarios declaring their rules never started or were cut short. Absent: the run record's
   * scenarios without a status.
   */
  scenarios?: readonly ScenarioProgress[];
}

/** summary.json's `scenarios[]`: the run record's, with how far each got when known. */
function scenarioEntries(run: RunRecord | null, progress: readonly ScenarioProgress[] | undefined): Summary['scenarios'] {
  if (!progress) return (run?.scenarios ?? []).map((s) => ({ name: s.name, rules: [...s.rules] }));
  return progress.map((p) => ({
    name: p.name,
    rules: [...p.rules],
    status: p.status,
    requests: p.requests,
    ...(p.tStart !== undefined && p.tEnd !== undefined ? { tStart: p.tStart, tEnd: p.tEnd } : {}),
  }));
}

/**
 * A not-exercised invariant whose rules only scenarios that never started (or were cut short)
 * declare says so first: the run stopped, the service did nothing wrong. Its own reason follows.
 */
function explainUnrun(invariants: readonly InvariantResult[], progress: readonly ScenarioProgress[] | undefined): InvariantResult[] {
  if (!progress || progress.every((p) => p.status === 'finished')) return [...invariants];
  return invariants.map((i) => {
    if (i.status !== 'not-exercised') return i;
    const because = unrunDeclaring(i.rules, progress);
    if (!because) return i;
    const own = i.reason?.trim().replace(/[.\s]+$/, '');
    return { ...i, reason: `not exercised because ${because}${own ? `; its check: ${own}` : ''}` };
  });
}

/** The end record's executor loads with their achieved rate. */
export function loadResults(end: EndRecord | null): LoadResult[] {
  return (end?.load ?? []).map((l) => {
    const s = Math.max(0.001, (l.tEnd - l.tStart) / 1000);
    return { ...l, achievedRate: Math.round((l.iterations / s) * 100) / 100 };
  });
}

/**
 * Findings the summary adds itself: which scenarios did not run to their end (a warning), which
 * rate limit and window the run checked and why, and what the edge probe measured. Sorted with
 * the judge's by level.
 */
function runFindings(run: RunRecord | null, end: EndRecord | null, boundary: RateBoundary | null | undefined, progress: readonly ScenarioProgress[] | undefined): Finding[] {
  const out: Finding[] = [];
  const unfinished = progress ? scenarioRunFinding(progress, stopPhrase(end)) : null;
  if (unfinished) out.push(unfinished);
  const rlDeclared = (run?.scenarios ?? []).some((s) => s.rules.some((r) => r.startsWith('RL-')));
  if (run && rlDeclared) out.push({ id: 'rate-limit-checked', level: 'info', text: limitWhy(run) + '.', rules: ['RL-1', 'RL-2'] });
  if (boundary) {
    const times = boundary.edge ? [Math.round(boundary.edge.from), Math.round(boundary.edge.to)] : [];
    out.push({ id: 'rate-limit-boundary', level: 'info', text: `Rate-limit probe on ${boundary.key}: ${boundary.text}.`, rules: ['RL-1', 'RL-2'], evidence: { message: boundary.text, keys: [boundary.key], ...(times.length ? { times } : {}) } });
  }
  return out;
}

const LEVEL_ORDER = { warning: 0, observation: 1, info: 2 } as const;

export function buildSummary(input: SummaryInput): Summary {
  const { run, end, metrics } = input;
  const started = input.startedAt ?? run?.wall ?? 0;
  const startedIso = new Date(typeof started === 'string' ? Date.parse(started) : started instanceof Date ? started.getTime() : started).toISOString();
  const durationMs = end?.tEnd ?? (metrics && typeof (metrics as RunMetrics).durationMs === 'number' ? (metrics as RunMetrics).durationMs : 0);
  return {
    version: SUMMARY_VERSION,
    runId: run?.runId ?? 'unknown',
    verdict: input.verdict,
    ...(input.reason !== undefined ? { reason: input.reason } : {}),
    // A history with no end record was cut short.
    complete: end?.complete ?? false,
    exitCode: input.exitCode,
    target: run?.target ?? { url: 'unknown', embedded: false, presentation: null },
    started_at: startedIso,
    duration_ms: durationMs,
    scenarios: scenarioEntries(run, input.scenarios),
    invariants: explainUnrun(input.invariants, input.scenarios),
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
    findings: [...(input.findings ?? []), ...runFindings(run, end, input.rateBoundary, input.scenarios).filter((f) => !input.findings?.some((g) => g.id === f.id))].sort(
      (a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level],
    ),
    ...(input.rateBoundary ? { rateBoundary: input.rateBoundary } : {}),
    ...(end?.load?.length ? { load: loadResults(end) } : {}),
  };
}
