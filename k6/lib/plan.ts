/**
 * What the test plans, as numbers the converter can compare with what k6 wrote.
 *
 * Real k6 gives teardown() no counters: `exec.instance` throws there (teardown runs in a
 * runtime of its own, ../shared/samples/k6/README.md), and nothing a VU kept reaches it. So
 * the scripts do not judge whether the plan ran; teardown's end marker (record.ts
 * `recordEnd`) carries the plan and two wall times, and `paystorm check`
 * (src/history/k6-plan.ts) judges it with what the `--out json` stream holds:
 *
 * - a time-based scenario (constant-arrival-rate, constant-vus, ramping-*) plans a span:
 *   its `startTime` + `duration` (or the sum of its `stages`);
 * - an iteration-based one (per-vu-iterations, shared-iterations) plans a count of
 *   iterations: vus × iterations, or iterations. An instance given an execution segment
 *   (k6-operator gives each runner one, e.g. `1/4:2/4`) plans its share of them;
 * - any other executor (externally-controlled) plans nothing that can be checked.
 *
 * Pure module (no k6 imports): teardown passes `exec.test.options`, Node tests pass objects.
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

/** What one scenario plans: a span (time-based), a count (iteration-based), or neither. */
export interface PlannedScenario {
  executor: string;
  /** startTime + duration (or the stages' sum), ms; null for an iteration-based scenario. */
  plannedMs: number | null;
  /** Iterations this instance plans (its segment's share); null for a time-based scenario. */
  plannedIterations: number | null;
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

const ms = (d: string | undefined): number => (d ? Math.round(durationSeconds(d) * 1000) : 0);

export const TIME_BASED_EXECUTORS: readonly string[] = ['constant-arrival-rate', 'constant-vus', 'ramping-arrival-rate', 'ramping-vus'];
export const ITERATION_BASED_EXECUTORS: readonly string[] = ['per-vu-iterations', 'shared-iterations'];

/** Each scenario's plan, for this instance's execution segment. */
export function planOf(scenarios: Record<string, ScenarioPlan>, segment?: string): Record<string, PlannedScenario> {
  const share = segmentShare(segment);
  const out: Record<string, PlannedScenario> = {};
  for (const [name, sc] of Object.entries(scenarios)) {
    const executor = sc.executor ?? '';
    let plannedMs: number | null = null;
    let plannedIterations: number | null = null;
    if (executor === 'constant-arrival-rate' || executor === 'constant-vus') {
      plannedMs = ms(sc.startTime) + ms(sc.duration);
    } else if (executor === 'ramping-arrival-rate' || executor === 'ramping-vus') {
      plannedMs = ms(sc.startTime) + (sc.stages ?? []).reduce((s, st) => s + ms(st.duration), 0);
    } else if (ITERATION_BASED_EXECUTORS.includes(executor)) {
      const n = executor === 'per-vu-iterations' ? (sc.vus ?? 1) * (sc.iterations ?? 1) : (sc.iterations ?? 1);
      // k6 stripes iterations (or VUs) over segments, so a share may be one short of the exact fraction.
      plannedIterations = share < 1 ? Math.max(0, Math.floor(n * share) - 1) : n;
    }
    out[name] = { executor, plannedMs, plannedIterations };
  }
  return out;
}
