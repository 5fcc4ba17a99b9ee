/**
 * How the receiver answers a verified delivery, decided from the run's seed, the event
 * id and the attempt number, so a run is repeatable. A test-mode event chosen to fail gets
 * 500 on its first delivery; a few of them (the first REPEAT_FIRST failing events, then
 * every REPEAT_EVERY-th) get 500 on their first `failAttempts` deliveries, so WH-9's
 * growing intervals can be judged from the gaps between attempts. Every later attempt
 * is answered 200: no event is failed for good. A live-mode event is never failed or
 * stalled (a tester fails test deliveries only).
 */
import { createHash } from 'node:crypto';

export type Answer = 'ok' | 'fail' | 'stall';

export interface AnswerPlan {
  seed: number;
  /** Share of test-mode events whose first delivery is answered 500. */
  failShare: number;
  /** Share of test-mode events whose first delivery is held past the acknowledge time. */
  stallShare: number;
  /** How many first attempts of a repeat-failed event get 500 (default DEFAULT_FAIL_ATTEMPTS). */
  failAttempts?: number;
}

/** Attempts failed in a row for the events chosen to fail repeatedly: three gaps to judge growth by. */
export const DEFAULT_FAIL_ATTEMPTS = 3;
/** The first failing events always fail repeatedly, so even a short run judges the intervals. */
export const REPEAT_FIRST = 3;
/** After those, every REPEAT_EVERY-th failing event does. */
export const REPEAT_EVERY = 5;

/** A uniform number in [0, 1) from the seed, event id and attempt. */
export function draw(seed: number, eventId: string, attempt: number): number {
  const h = createHash('sha256').update(`${seed}\u0000${eventId}\u0000${attempt}`).digest();
  return h.readUIntBE(0, 6) / 2 ** 48;
}

/**
 * The first attempt's answer: `attempt` counts earlier verified deliveries of the same event
 * id (0 = first). `livemode` is the envelope's: only `false` (a test-mode event) may be failed.
 */
export function chooseAnswer(plan: AnswerPlan, eventId: string | null, attempt: number, livemode: unknown = false): Answer {
  if (eventId === null || attempt > 0 || livemode !== false) return 'ok';
  const u = draw(plan.seed, eventId, attempt);
  if (u < plan.failShare) return 'fail';
  if (u < plan.failShare + plan.stallShare) return 'stall';
  return 'ok';
}

/**
 * Tracks, per event, how many of its attempts still get 500: the receiver asks `answer` for
 * each verified delivery in arrival order. Which failing events repeat depends on their order
 * among failing events (the first REPEAT_FIRST, then every REPEAT_EVERY-th).
 */
export class AnswerBook {
  private readonly failsLeft = new Map<string, number>();
  private failing = 0;
  readonly failAttempts: number;

  constructor(private readonly plan: AnswerPlan) {
    this.failAttempts = Math.max(1, Math.floor(plan.failAttempts ?? DEFAULT_FAIL_ATTEMPTS));
  }

  answer(eventId: string | null, attempt: number, livemode: unknown): Answer {
    if (eventId !== null && attempt > 0) {
      const left = this.failsLeft.get(eventId);
      if (left === undefined) return 'ok';
      if (left <= 1) this.failsLeft.delete(eventId);
      else this.failsLeft.set(eventId, left - 1);
      return 'fail';
    }
    const a = chooseAnswer(this.plan, eventId, attempt, livemode);
    if (a === 'fail' && eventId !== null) {
      const n = this.failing++;
      const repeat = n < REPEAT_FIRST || (n - REPEAT_FIRST) % REPEAT_EVERY === REPEAT_EVERY - 1;
      if (repeat && this.failAttempts > 1) this.failsLeft.set(eventId, this.failAttempts - 1);
    }
    return a;
  }
}
