// Judging a check and the one it replaced (kept in this folder) side by side, for the tests that
// show a rewrite for memory changed nothing but where the check keeps its state.
import { expect } from 'vitest';
import type { HistoryRecord } from '../../../src/history/index.ts';
import { judge } from '../../../src/oracle/index.ts';
import type { Invariant } from '../../../src/oracle/types.ts';
import type { InvariantResult } from '../../../src/spec/index.ts';
import { withPagesOnDisk } from '../fixtures.ts';

/** What a check's result says: its status, count, checks and evidence. */
export async function judgeWith(check: Invariant, records: HistoryRecord[]): Promise<Pick<InvariantResult, 'status' | 'violations' | 'checked' | 'examples'>> {
  const { invariants } = await judge(records, { invariants: [check] });
  const { status, violations, checked, examples } = invariants[0];
  return { status, violations, checked, examples };
}

/**
 * Expects `now` to judge the histories of seeds 1..`seeds` as `was` does, the odd seeds on pages
 * of two rows (nearly every read through the scratch files) and the even ones on the default pages
 * (all in memory). Gives how many histories `was` passed and failed, for the test to show both
 * verdicts were reached.
 */
export async function expectJudgedAsReplaced(now: Invariant, was: Invariant, history: (seed: number) => HistoryRecord[], seeds = 200): Promise<{ pass: number; fail: number }> {
  const tally = { pass: 0, fail: 0 };
  for (let seed = 1; seed <= seeds; seed++) {
    const records = history(seed);
    const want = await judgeWith(was, records);
    const got = seed % 2 ? await withPagesOnDisk(() => judgeWith(now, records)) : await judgeWith(now, records);
    expect({ seed, ...got }).toEqual({ seed, ...want });
    if (want.status === 'pass' || want.status === 'fail') tally[want.status]++;
  }
  return tally;
}
