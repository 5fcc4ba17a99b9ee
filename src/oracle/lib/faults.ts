/** Fault windows (from fault records) against times of the run. */
import type { FaultRecord } from '../../history/index.ts';

export type FaultLink = FaultRecord['link'];

/** A fault window overlapping [from, to] (any link unless given). */
export function faultOverlapping(faults: readonly FaultRecord[], from: number, to: number, link?: FaultLink): FaultRecord | undefined {
  return faults.find((f) => (!link || f.link === link) && f.tStart <= to && f.tEnd >= from);
}

/** A fault window overlapping [from, to], each window widened by its own merged shard's clock slack: where a fault may have acted. */
export function faultMaybeOverlapping(faults: readonly FaultRecord[], from: number, to: number): FaultRecord | undefined {
  return faults.find((f) => f.tStart - (f.clockSlackMs ?? 0) <= to && f.tEnd + (f.clockSlackMs ?? 0) >= from);
}

/** Whether a fault is active at t. */
export function faultAt(faults: readonly FaultRecord[], t: number, link?: FaultLink): FaultRecord | undefined {
  return faultOverlapping(faults, t, t, link);
}

/**
 * When something seen still pending at `t` is past the bound after the faults healed (FT-2 for
 * payments, REF-1 for refunds): the latest heal before t, if no fault is active at t and more than
 * `bound` has passed since; else null. A fault excuses a slow settlement, not a stranded one.
 */
export function pendingPastHeal(faults: readonly FaultRecord[], t: number, bound: number): number | null {
  if (faultAt(faults, t)) return null;
  const healed = lastHealBefore(faults, t);
  return healed > -Infinity && t - healed > bound ? healed : null;
}

/** End of the latest fault that healed at or before t (-Infinity when none). */
export function lastHealBefore(faults: readonly FaultRecord[], t: number, link?: FaultLink): number {
  let h = -Infinity;
  for (const f of faults) if ((!link || f.link === link) && f.tEnd <= t && f.tEnd > h) h = f.tEnd;
  return h;
}

/**
 * Largest `limit_data` that still stops every processor call: no processor answer (status line,
 * headers and a body saying how the payment went) fits in 64 bytes, the chaos scenario's limit.
 * A larger limit may let a call through on a fresh connection, so it does not stop the upstream.
 */
const HARD_LIMIT_DATA_BYTES = 64;

/** Toxics that stop traffic outright (as opposed to slowing it) when they hit every connection. */
export function isHardFault(f: FaultRecord): boolean {
  if (f.toxic.toxicity < 1) return false;
  if (f.toxic.type === 'limit_data') return Number(f.toxic.attributes.bytes ?? 0) <= HARD_LIMIT_DATA_BYTES;
  return ['timeout', 'reset_peer', 'down'].includes(f.toxic.type);
}

/**
 * The hard fault that surely stopped the upstream for all of [from, to], widened by the caller's
 * clock slack: the fault's own sure window (Toxiproxy acknowledged it, removal not yet asked),
 * narrowed by its slack. A request in the wide window only may have slipped past the toxic, and a
 * record without a sure window (written before it was recorded) surely covers nothing.
 */
export function hardFaultCovering(faults: readonly FaultRecord[], from: number, to: number): FaultRecord | undefined {
  return faults.find((f) => {
    if (!isHardFault(f) || f.tApplied === undefined || f.tRemoving === undefined) return false;
    const slack = f.clockSlackMs ?? 0;
    return f.tApplied + slack <= from && f.tRemoving - slack >= to;
  });
}
