/** The order every report lists results in: what needs attention first. */
import type { InvariantResult, InvariantStatus, ThresholdResult } from '../spec/summary.ts';

const INVARIANT_RANK: Record<InvariantStatus, number> = { fail: 0, error: 1, 'not-exercised': 2, pass: 3 };

/** fail, error, not-exercised, pass; stable within a status (the oracle's order). */
export function sortInvariants(list: readonly InvariantResult[]): InvariantResult[] {
  return list
    .map((inv, i) => ({ inv, i }))
    .sort((a, b) => INVARIANT_RANK[a.inv.status] - INVARIANT_RANK[b.inv.status] || a.i - b.i)
    .map((x) => x.inv);
}

/** Breached thresholds first, otherwise as configured. */
export function sortThresholds(list: readonly ThresholdResult[]): ThresholdResult[] {
  return list
    .map((t, i) => ({ t, i }))
    .sort((a, b) => Number(a.t.ok) - Number(b.t.ok) || a.i - b.i)
    .map((x) => x.t);
}
