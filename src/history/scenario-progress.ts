/**
 * How far each selected scenario of a run got, from its history alone: ran to its end
 * (`finished`), stopped before its end (`cut-short`), never started (`not-started`), or ran
 * without the history telling whether to its end (`started`). summary.json's `scenarios[].status`
 * (src/spec/summary.ts `SCENARIO_STATUSES`), for `check`, `report` and `merge` alike.
 *
 * The history has no scenario start or end markers. What tells:
 * - The end record. `done` (complete): every scenario ran to its end. `scenario-error: <names>`:
 *   those scenarios threw; the engine went on with the next ones, so the others finished.
 * - A paystorm run runs its scenarios one after the other, in the run record's order, and at an
 *   interrupt or a cap it starts no further one (src/engine/run.ts). So when it stopped early (or
 *   the history has no end record), the last scenario with anything in the history (an exchange,
 *   or an executor in the end record's `load`) was cut short, those before it finished, those
 *   after it never started. One case reads wrong and cannot be told apart: a scenario that ended
 *   just before the stop while the next one had sent nothing yet reads as cut short.
 * - A k6 run (run record `facts.source: 'k6'`) runs its scenarios side by side: those with
 *   exchanges were cut short when the end marker says the plan did not run, or when the script
 *   writes a marker and none came (killed); with no marker to go by, `started`.
 * - A merged run (`facts.merge`): mergeShards records each shard's own progress in
 *   `facts.merge[i].scenarios`; a scenario finished when it finished in every shard that ran
 *   it, never started when it started in none, and was cut short otherwise. A merge written
 *   before that field existed says only which scenarios have records (`started`).
 */
import type { ScenarioStatus } from '../spec/summary.ts';
import type { EndRecord, HistoryRecord, RunRecord } from './schema.ts';
import { runStop } from './stop.ts';

interface Activity {
  requests: number;
  tStart: number;
  tEnd: number;
}

/** Folds the exchanges of a history by scenario: how many, first start, last end. */
export class ScenarioActivity {
  private readonly by = new Map<string, Activity>();
  // Exchanges come in runs of one scenario: spare the map lookup.
  private lastName: string | null = null;
  private last: Activity | null = null;

  add(rec: HistoryRecord): void {
    if (rec.kind !== 'exchange') return;
    let a = rec.scenario === this.lastName ? this.last : this.by.get(rec.scenario);
    if (!a) {
      a = { requests: 0, tStart: Infinity, tEnd: -Infinity };
      this.by.set(rec.scenario, a);
    }
    this.lastName = rec.scenario;
    this.last = a;
    a.requests++;
    if (rec.tStart < a.tStart) a.tStart = rec.tStart;
    if (rec.tEnd > a.tEnd) a.tEnd = rec.tEnd;
  }

  get(scenario: string): Readonly<Activity> | undefined {
    return this.by.get(scenario);
  }
}

export interface ScenarioProgress {
  name: string;
  rules: string[];
  status: ScenarioStatus;
  /** Exchanges it recorded. */
  requests: number;
  /** Its first request's start and last answer's end (run clock, ms); absent when it recorded none. */
  tStart?: number;
  tEnd?: number;
  /** Why it did not finish, one phrase (`the run was interrupted`); absent when it finished. */
  why?: string;
}

/**
 * What stopped the run, one phrase for the reports: `the run was interrupted`, `the --max-requests
 * cap stopped the run`, `a shard ended early (shard b/history.bin.gz: interrupted)`,
 * `a scenario threw an error`, `the history ends without its end record`.
 */
export function stopPhrase(end: EndRecord | null): string {
  if (!end) return 'the history ends without its end record';
  const reason = end.reason.trim();
  if (/(^|; )shard /.test(reason)) return `a shard ended early (${reason})`;
  switch (runStop(end).kind) {
    case 'done':
      return 'the run finished';
    case 'cap':
      return `the --${reason.replace(/^cap:\s*/, '')} cap stopped the run`;
    case 'scenario-error':
      return 'a scenario threw an error';
    default:
      return reason === 'interrupted' ? 'the run was interrupted' : `the run stopped early (${reason})`;
  }
}

interface ShardProgress {
  scenarios?: { name: string; status: ScenarioStatus }[];
}

function combine(statuses: readonly ScenarioStatus[], ran: boolean): ScenarioStatus {
  if (statuses.length === 0) return ran ? 'started' : 'not-started';
  if (statuses.every((s) => s === statuses[0])) return statuses[0];
  // Run in one shard and not (or not all of it) in another: the scenario as a whole did not run to its end.
  if (statuses.some((s) => s === 'cut-short' || s === 'not-started')) return 'cut-short';
  return 'started';
}

function statusesOf(run: RunRecord, end: EndRecord | null, names: readonly string[], ran: (name: string) => boolean): ScenarioStatus[] {
  const stop = runStop(end);
  if (stop.kind === 'done') return names.map(() => 'finished');
  const shards = run.facts?.merge as ShardProgress[] | undefined;
  if (Array.isArray(shards) && shards.length > 0) {
    if (!shards.every((sh) => Array.isArray(sh?.scenarios))) return names.map((n) => (ran(n) ? 'started' : 'not-started'));
    return names.map((n) => combine(shards.flatMap((sh) => sh.scenarios!.filter((x) => x.name === n).map((x) => x.status)), ran(n)));
  }
  if (run.facts?.source === 'k6') {
    const marker = (run.facts.k6 as { end?: { marker?: boolean; expected?: boolean } } | undefined)?.end;
    const cut = marker?.marker === true || marker?.expected === true;
    return names.map((n) => (ran(n) ? (cut ? 'cut-short' : 'started') : 'not-started'));
  }
  if (stop.kind === 'scenario-error') {
    const failed = new Set(
      stop.reason
        .replace(/^.*?scenario-error:\s*/, '')
        .split(',')
        .map((s) => s.trim()),
    );
    return names.map((n) => (failed.has(n) ? 'cut-short' : 'finished'));
  }
  // Interrupted, a cap, or no end record: one scenario after the other, stopped in the last one seen.
  let last = -1;
  names.forEach((n, i) => {
    if (ran(n)) last = i;
  });
  return names.map((_, i) => (i < last ? 'finished' : i === last ? 'cut-short' : 'not-started'));
}

/** Each of the run record's scenarios, in its order, with how far it got. */
export function scenarioProgress(run: RunRecord | null, end: EndRecord | null, activity: ScenarioActivity): ScenarioProgress[] {
  if (!run) return [];
  const names = run.scenarios.map((s) => s.name);
  const loaded = new Set((end?.load ?? []).map((l) => l.scenario));
  const ran = (name: string) => (activity.get(name)?.requests ?? 0) > 0 || loaded.has(name);
  const statuses = statusesOf(run, end, names, ran);
  // A scenario that threw was stopped by its own error, not by what stopped the run.
  const why = runStop(end).kind === 'scenario-error' && !/(^|; )shard /.test(end?.reason ?? '') ? 'it threw an error' : stopPhrase(end);
  return run.scenarios.map((s, i) => {
    const a = activity.get(s.name);
    return {
      name: s.name,
      rules: [...s.rules],
      status: statuses[i],
      requests: a?.requests ?? 0,
      ...(a && a.requests > 0 ? { tStart: a.tStart, tEnd: a.tEnd } : {}),
      ...(statuses[i] !== 'finished' ? { why } : {}),
    };
  });
}

/** The same for a list of records (mergeShards: one shard). */
export function scenarioProgressOf(records: readonly HistoryRecord[]): ScenarioProgress[] {
  const activity = new ScenarioActivity();
  let run: RunRecord | null = null;
  let end: EndRecord | null = null;
  for (const r of records) {
    if (r.kind === 'run') run ??= r;
    else if (r.kind === 'end') end = r;
    else activity.add(r);
  }
  return scenarioProgress(run, end, activity);
}
