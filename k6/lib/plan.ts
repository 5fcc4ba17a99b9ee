/**
 * Did the test run its plan? Judged in teardown() from what `k6/execution` tells there
 * (k6 runs teardown also after a graceful stop: Ctrl-C, `test.abort()`, an `abortOnFail`
 * threshold), and written into the end marker (record.ts `recordEnd`) that
 * `paystorm check` reads: only a marker that says the plan ran makes the run complete.
 *
 * Pure module (no k6 imports): teardown passes the numbers, Node tests pass objects.
 *
 * - Time-based scenarios (constant-arrival-rate, constant-vus, ramping-*): the plan ran when
 *   the time the scenarios had (the test-run duration at teardown minus the part setup()
 *   took, `exec.instance.currentTestRunDuration` counts from before setup) reached the latest
 *   scenario end (`startTime` + `duration`, or the sum of the `stages`). A stopped test reaches
 *   teardown early.
 * - Iteration-based scenarios (per-vu-iterations, shared-iterations): the plan ran when the
 *   instance completed every planned iteration and none was interrupted (k6 counts an
 *   iteration that threw, or that `maxDuration` cut, as interrupted).
 *   An instance given an execution segment (k6-operator) plans its share of them.
 * - Any other executor (externally-controlled): no plan to compare with, so not "ran".
 */
import { durationSeconds } from './config.ts';

/** The fields of a k6 scenario the plan is read from (k6's consolidated options or the script's own). */
export interface ScenarioPlan {
  executor?: string;
  startTime?: string;
  duration?: string;
  stages?: { duration?: string }[];
  vus?: number;
  iterations?: number;
}

export interface PlanCounters {
  /** exec.instance.currentTestRunDuration in teardown, ms. */
  runMs: number;
  /** exec.instance.currentTestRunDuration when setup() returned, ms (0 without setup). */
  setupMs: number;
  /** exec.instance.iterationsCompleted. */
  iterationsCompleted: number;
  /** exec.instance.iterationsInterrupted. */
  iterationsInterrupted: number;
  /**
   * k6's `executionSegment` option when the test is split over instances (k6-operator gives
   * each runner one, e.g. `1/4:2/4`): an instance runs only its share of the iterations.
   */
  segment?: string;
}

/** One end of an execution segment: `1/4`, `25%`, `0.25`. NaN when malformed. */
function segmentPoint(p: string): number {
  const t = p.trim();
  if (t.endsWith('%')) return Number(t.slice(0, -1)) / 100;
  const [n, d] = t.split('/');
  return d === undefined ? Number(n) : Number(n) / Number(d);
}

/** The share of the test an execution segment `from:to` covers (1 for none or a malformed one). */
export function segmentShare(segment: string | undefined): number {
  if (!segment) return 1;
  const [a, b] = segment.split(':');
  const share = b === undefined ? segmentPoint(a) : segmentPoint(b) - segmentPoint(a);
  return Number.isFinite(share) && share > 0 && share <= 1 ? share : 1;
}

/** What the end marker carries: the verdict and its evidence. */
export interface PlanEvidence extends PlanCounters {
  planRan: boolean;
  /** Time the scenarios were planned to take (latest startTime + duration), ms; null: no time-based scenario. */
  plannedMs: number | null;
  /** Iterations planned (per-vu-iterations: vus × iterations; shared-iterations: iterations); null: none. */
  plannedIterations: number | null;
  /** Why the plan did not run (empty when it did). */
  why: string;
}

const ms = (d: string | undefined): number => (d ? Math.round(durationSeconds(d) * 1000) : 0);

export function planEvidence(scenarios: Record<string, ScenarioPlan>, c: PlanCounters): PlanEvidence {
  let plannedMs: number | null = null;
  let plannedIterations: number | null = null;
  const unknown: string[] = [];
  for (const [name, sc] of Object.entries(scenarios)) {
    const ex = sc.executor ?? '';
    if (ex === 'per-vu-iterations' || ex === 'shared-iterations') {
      const n = ex === 'per-vu-iterations' ? (sc.vus ?? 1) * (sc.iterations ?? 1) : (sc.iterations ?? 1);
      plannedIterations = (plannedIterations ?? 0) + n;
    } else if (ex === 'constant-arrival-rate' || ex === 'constant-vus') {
      plannedMs = Math.max(plannedMs ?? 0, ms(sc.startTime) + ms(sc.duration));
    } else if (ex === 'ramping-arrival-rate' || ex === 'ramping-vus') {
      plannedMs = Math.max(plannedMs ?? 0, ms(sc.startTime) + (sc.stages ?? []).reduce((s, st) => s + ms(st.duration), 0));
    } else {
      unknown.push(`${name} (${ex || 'no executor'})`);
    }
  }
  const why: string[] = [];
  if (unknown.length) why.push(`no plan to compare with for scenario ${unknown.join(', ')}`);
  if (plannedMs === null && plannedIterations === null && !unknown.length) why.push('no scenario');
  const ranMs = c.runMs - c.setupMs;
  if (plannedMs !== null && ranMs < plannedMs) why.push(`the scenarios ran ${Math.round(ranMs)} ms of the planned ${plannedMs} ms`);
  // An instance of a split test plans its share; k6 stripes iterations over segments, so a
  // share may be one short of the exact fraction.
  const share = segmentShare(c.segment);
  if (plannedIterations !== null && share < 1) plannedIterations = Math.max(0, Math.floor(plannedIterations * share) - 1);
  if (plannedIterations !== null && c.iterationsCompleted < plannedIterations) why.push(`${c.iterationsCompleted} of ${plannedIterations} planned iterations completed`);
  if (plannedIterations !== null && c.iterationsInterrupted > 0) why.push(`${c.iterationsInterrupted} iterations interrupted`);
  return { planRan: why.length === 0, plannedMs, plannedIterations, ...c, why: why.join('; ') };
}
