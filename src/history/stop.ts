/**
 * Why a run stopped, from its end record: the one place that reads `end.reason`, for `check`,
 * `merge` and the reports. A merged history's reason lists each incomplete shard
 * (`shard <source>: <reason>` or `shard without end record: <source>`, joined by `; `); the
 * worst of them decides.
 */
import type { EndRecord } from './schema.ts';

export type StopKind = 'done' | 'cap' | 'violation' | 'scenario-error' | 'interrupted';

export interface RunStop {
  kind: StopKind;
  /** The end record's reason (or why there is none). */
  reason: string;
}

const RANK: Record<StopKind, number> = { done: 0, cap: 1, violation: 1, 'scenario-error': 2, interrupted: 3 };

function kindOf(reason: string): StopKind {
  const r = reason.trim();
  if (r === 'done') return 'done';
  if (r.startsWith('cap:')) return 'cap';
  // --abort-on-violation: stopped at a violation, which the verdict fails on.
  if (r.startsWith('violation:')) return 'violation';
  if (r.startsWith('scenario-error')) return 'scenario-error';
  // `interrupted`, a shard with no end record, and any reason this version does not know.
  return 'interrupted';
}

export function runStop(end: EndRecord | null): RunStop {
  if (!end) return { kind: 'interrupted', reason: 'the history has no end record (the run was cut short)' };
  if (end.complete) return { kind: 'done', reason: end.reason };
  let worst: StopKind = 'done';
  for (const part of end.reason.split('; ')) {
    const shard = /^shard without end record: /.test(part) ? 'interrupted' : kindOf(part.replace(/^shard .*?: (?=(done|cap:|violation:|scenario-error|interrupted))/, ''));
    if (RANK[shard] > RANK[worst]) worst = shard;
  }
  // Incomplete, but no part says why: not a run that finished.
  return { kind: worst === 'done' ? 'interrupted' : worst, reason: end.reason };
}
