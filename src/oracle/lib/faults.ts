/** Fault windows (from fault records) against times of the run. */
import type { FaultRecord } from '../../history/index.ts';

export type FaultLink = FaultRecord['link'];

/** A fault window overlapping [from, to] (any link unless given). */
export function faultOverlapping(faults: readonly FaultRecord[], from: number, to: number, link?: FaultLink): FaultRecord | undefined {
  return faults.find((f) => (!link || f.link === link) && f.tStart <= to && f.tEnd >= from);
}

/** Whether a fault is active at t. */
export function faultAt(faults: readonly FaultRecord[], t: number, link?: FaultLink): FaultRecord | undefined {
  return faultOverlapping(faults, t, t, link);
}

/** End of the latest fault that healed at or before t (-Infinity when none). */
export function lastHealBefore(faults: readonly FaultRecord[], t: number, link?: FaultLink): number {
  let h = -Infinity;
  for (const f of faults) if ((!link || f.link === link) && f.tEnd <= t && f.tEnd > h) h = f.tEnd;
  return h;
}

/** Toxics that stop traffic outright (as opposed to slowing it) when they hit every connection. */
export function isHardFault(f: FaultRecord): boolean {
  return f.toxic.toxicity >= 1 && ['timeout', 'reset_peer', 'down', 'limit_data'].includes(f.toxic.type);
}

/**
 * The hard fault that surely stopped the upstream for all of [from, to], widened by the caller's
 * clock slack: the fault's own sure window (Toxiproxy acknowledged it, removal not yet asked),
 * narrowed by its slack. A request in the wide window only may have slipped past the toxic.
 */
export function hardFaultCovering(faults: readonly FaultRecord[], from: number, to: number): FaultRecord | undefined {
  return faults.find((f) => {
    if (!isHardFault(f)) return false;
    const slack = f.clockSlackMs ?? 0;
    return (f.tApplied ?? f.tStart) + slack <= from && (f.tRemoving ?? f.tEnd) - slack >= to;
  });
}
