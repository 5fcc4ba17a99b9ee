/**
 * How the receiver answers a verified delivery, decided from the run's seed, the event
 * id and the attempt number, so a run is repeatable. A test-mode event chosen to fail gets
 * 500 on its first delivery; a few of them (the first REPEAT_FIRST failing events, then
 * every REPEAT_EVERY-th) get 500 on their first `failAttempts` deliveries, so WH-9's
 * growing intervals can be judged from the gaps between attempts. Each copy of an event
 * (at-least-once delivery) is failed the same way (see AnswerBook). Every later attempt
 * is answered 200: no event is failed for good. A live-mode event is never failed or
 * stalled (a tester fails test deliveries only). The book tops the draw up so that the events
 * failed never fall below the rounded share of the test-mode events seen: a short run still
 * fails some, and the retry rules are exercised.
 */
import { COPY_GAP_MS } from '../spec/tolerances.ts';
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
  /** The clock `answer` reads arrival times from when none is given (ms; default performance.now). */
  now?: () => number;
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

export { COPY_GAP_MS };
/** Delivery chains (the first delivery and at most one copy) of one event id that get failures. */
export const MAX_FAILED_CHAINS = 2;
/** Failing events the book remembers (the oldest is forgotten past this: its later copies get 200). */
const MAX_TRACKED = 10_000;

/** One failing event's delivery chains, as the receiver reads them. */
interface EventChains {
  /** 500s still planned per chain (index = chain). */
  failsLeft: number[];
  /** Chains whose latest delivery failed and that no delivery has continued yet, oldest first. */
  open: number[];
  /** When the latest delivery of the id arrived. */
  last: number;
  /** Some delivery of the id was answered 2xx. */
  ok: boolean;
  /** 500s each chain gets in all (its first delivery included), decided at the event's first failure. */
  total: number;
}

/**
 * Tracks, per failing event, how many of its attempts still get 500: the receiver asks `answer`
 * for each verified delivery in arrival order. Which failing events repeat depends on their order
 * among failing events (the first REPEAT_FIRST, then every REPEAT_EVERY-th).
 *
 * Delivery is at-least-once, so one id may arrive as several copies, each with its own retries.
 * Failures are counted per delivery chain, so that each copy gets the failures the policy intends
 * (and growth can be judged on each chain): a delivery continues the oldest chain of its id whose
 * latest delivery failed and was not retried yet, and starts a new chain (a copy) when it arrives
 * less than COPY_GAP_MS after another delivery of the id, or after the id was answered 2xx, or
 * when no chain is open. At most MAX_FAILED_CHAINS chains of an id get failures: later ones are
 * answered 200, so no event is failed for good, whatever the sender does.
 */
export class AnswerBook {
  private readonly events = new Map<string, EventChains>();
  private failing = 0;
  /** Test-mode events seen (first deliveries), to keep the failed share from falling short by chance. */
  private firsts = 0;
  readonly failAttempts: number;
  private readonly now: () => number;

  constructor(private readonly plan: AnswerPlan) {
    this.failAttempts = Math.max(1, Math.floor(plan.failAttempts ?? DEFAULT_FAIL_ATTEMPTS));
    this.now = plan.now ?? (() => performance.now());
  }

  /** `at`: arrival time (ms, any monotonic clock; the book's clock when omitted). */
  answer(eventId: string | null, attempt: number, livemode: unknown, at: number = this.now()): Answer {
    if (eventId !== null && attempt > 0) {
      const e = this.events.get(eventId);
      if (!e) return 'ok';
      const copy = e.open.length === 0 || at - e.last < COPY_GAP_MS || e.ok;
      e.last = at;
      let chain: number;
      if (copy && e.failsLeft.length < MAX_FAILED_CHAINS) {
        // A new chain: its first delivery gets what the event's first delivery got.
        chain = e.failsLeft.length;
        e.failsLeft.push(e.total);
      } else if (e.open.length > 0) {
        chain = e.open.shift()!;
      } else {
        // Every chain that may fail has ended: nothing more is failed for this id.
        this.events.delete(eventId);
        return 'ok';
      }
      const left = e.failsLeft[chain];
      if (left <= 0) {
        e.ok = true;
        if (e.open.length === 0 && e.failsLeft.length >= MAX_FAILED_CHAINS) this.events.delete(eventId);
        return 'ok';
      }
      e.failsLeft[chain] = left - 1;
      e.open.push(chain);
      return 'fail';
    }
    let a = chooseAnswer(this.plan, eventId, attempt, livemode);
    if (eventId !== null && attempt === 0 && livemode === false) {
      this.firsts++;
      // The draw alone can fail none of a short run's few events (0.8^10 = 11% at share 0.2),
      // leaving the retry rules unexercised: top up to the rounded share of the events seen.
      if (a === 'ok' && this.failing < Math.round(this.firsts * this.plan.failShare)) a = 'fail';
    }
    if (a === 'fail' && eventId !== null) {
      const n = this.failing++;
      const repeat = n < REPEAT_FIRST || (n - REPEAT_FIRST) % REPEAT_EVERY === REPEAT_EVERY - 1;
      const total = repeat ? this.failAttempts : 1;
      this.events.set(eventId, { failsLeft: [total - 1], open: [0], last: at, ok: false, total });
      if (this.events.size > MAX_TRACKED) this.events.delete(this.events.keys().next().value!);
    }
    return a;
  }
}
