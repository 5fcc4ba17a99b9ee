/**
 * Did a k6 run run its plan? Judged from what real k6 lets a script record and what its
 * `--out json` stream holds, never from a verdict the script wrote:
 *
 * - the end marker that the scripts' teardown() writes (k6/lib/record.ts `recordEnd`): each
 *   scenario's plan (k6/lib/plan.ts) and the wall times of setup's end and of teardown.
 *   Markers without a version (as in the real recordings in ../shared/samples/k6) carry the
 *   plan as totals (`plannedMs`, `plannedIterations`) and a `planRan` that real k6 always
 *   made false (its `exec.instance` throws in teardown): that verdict is ignored, the
 *   totals are used;
 * - the run facts' `wall` (setup, recordRun) when the marker has no setup time;
 * - the `iterations` points, one per completed iteration, tagged with the scenario.
 *
 * A time-based scenario ran its plan when teardown came at least its span after setup's
 * end: k6 starts the scenarios after setup returns and runs teardown after they end, and a
 * stopped test (SIGINT, exit 105; `exec.test.abort()`, 108; an abortOnFail threshold) runs
 * teardown at once. An iteration-based scenario ran its plan when k6 wrote an `iterations`
 * point for each planned iteration (an interrupted iteration writes none).
 */
export interface K6PlanJudgement {
  planRan: boolean;
  /** Why the plan did not run ('' when it did). */
  why: string;
  /** Teardown's wall time minus setup's end, ms (null when either is missing). */
  ranMs: number | null;
}

interface PlanLine {
  name: string;
  executor: string;
  plannedMs: number | null;
  plannedIterations: number | null;
  /** Completed iterations k6 wrote for it (all scenarios' for a first-version total). */
  completed: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The plan the marker states, one line per scenario (a first-version marker: one line for the totals). */
function planLines(marker: Record<string, unknown>, iterations: Readonly<Record<string, number>>): PlanLine[] {
  const scenarios = marker.scenarios;
  if (scenarios !== null && typeof scenarios === 'object' && !Array.isArray(scenarios)) {
    return Object.entries(scenarios as Record<string, Record<string, unknown>>).map(([name, p]) => ({
      name,
      executor: typeof p?.executor === 'string' ? p.executor : '',
      plannedMs: num(p?.plannedMs),
      plannedIterations: num(p?.plannedIterations),
      completed: iterations[name] ?? 0,
    }));
  }
  const plannedMs = num(marker.plannedMs);
  const plannedIterations = num(marker.plannedIterations);
  if (plannedMs === null && plannedIterations === null) return [];
  const all = Object.values(iterations).reduce((s, n) => s + n, 0);
  return [{ name: 'the scenarios', executor: '', plannedMs, plannedIterations, completed: all }];
}

/**
 * Judges one end marker. `runWall`: the run facts' wall time (setup), used when the marker
 * has no setup time of its own; `iterations`: completed iterations by scenario tag.
 */
export function judgeK6Plan(marker: Record<string, unknown>, runWall: number | null, iterations: Readonly<Record<string, number>>): K6PlanJudgement {
  const setupWall = num(marker.setupWall) ?? runWall;
  const teardownWall = num(marker.wall);
  const ranMs = setupWall !== null && teardownWall !== null ? teardownWall - setupWall : null;
  const lines = planLines(marker, iterations);
  const why: string[] = [];
  if (lines.length === 0) why.push('the end marker states no scenario plan');
  for (const l of lines) {
    if (l.plannedMs !== null) {
      if (ranMs === null) why.push(`${l.name}: no setup() and teardown() wall times to measure its planned ${secs(l.plannedMs)} with`);
      else if (ranMs < l.plannedMs) why.push(`teardown came ${secs(ranMs)} after setup, before ${l.name === 'the scenarios' ? 'the scenarios\'' : `scenario ${l.name}'s`} planned ${secs(l.plannedMs)} had passed`);
    }
    if (l.plannedIterations !== null && l.completed < l.plannedIterations) {
      why.push(`${l.completed} of ${l.plannedIterations} planned iterations of ${l.name === 'the scenarios' ? 'the scenarios' : `scenario ${l.name}`} completed`);
    }
    if (l.plannedMs === null && l.plannedIterations === null) why.push(`no plan to compare with for scenario ${l.name} (${l.executor || 'no executor'})`);
  }
  return { planRan: why.length === 0, why: why.join('; '), ranMs };
}
