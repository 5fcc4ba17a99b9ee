/**
 * How the receiver answers a verified delivery, decided from the run's seed, the event
 * id and the attempt number, so a run is repeatable. Only an event's first delivery may
 * be failed or stalled: its retries then succeed, which makes WH-9's retries observable
 * without ever failing an event for good.
 */
import { createHash } from 'node:crypto';

export type Answer = 'ok' | 'fail' | 'stall';

export interface AnswerPlan {
  seed: number;
  /** Share of first deliveries answered 500. */
  failShare: number;
  /** Share of first deliveries held past the acknowledge time. */
  stallShare: number;
}

/** A uniform number in [0, 1) from the seed, event id and attempt. */
export function draw(seed: number, eventId: string, attempt: number): number {
  const h = createHash('sha256').update(`${seed}\u0000${eventId}\u0000${attempt}`).digest();
  return h.readUIntBE(0, 6) / 2 ** 48;
}

/** `attempt` counts earlier verified deliveries of the same event id (0 = first). */
export function chooseAnswer(plan: AnswerPlan, eventId: string | null, attempt: number): Answer {
  if (eventId === null || attempt > 0) return 'ok';
  const u = draw(plan.seed, eventId, attempt);
  if (u < plan.failShare) return 'fail';
  if (u < plan.failShare + plan.stallShare) return 'stall';
  return 'ok';
}
