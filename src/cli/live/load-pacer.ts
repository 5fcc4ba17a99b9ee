/**
 * Tells the live judge to hold off while the load is saturated. On a small machine (the 2-vCPU
 * bench VM) any work on the other core slows a saturated load, whatever its priority: a spinner at
 * SCHED_IDLE in another process cost the closed-loop throughput bench up to about 29% of its rate
 * (bench/README.md). So while this thread's event loop is busy nearly all the time (the load is
 * CPU-bound here), the judge waits, for at most its hold bound (reader.ts FollowOptions.held),
 * and catches up once the load leaves room or the bound is reached; a run that is not saturated
 * (an arrival rate the machine keeps up with) is judged as it goes.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** How often the event loop's utilization is looked at (ms). */
export const PACE_EVERY_MS = 250;
/**
 * Utilization from which the judge is held, and below which it is let go again. A closed loop
 * against a fast target keeps the loop 80–95% busy (the rest is waiting on sockets); a run held to
 * a rate limit or a modest arrival rate, far less (the default suite: no hold at all).
 */
export const HOLD_FROM = 0.8;
export const RELEASE_BELOW = 0.6;

/** One Int32 in shared memory: 1 while the judge should hold off, 0 otherwise. */
export function holdFlag(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** Whether the flag says hold (the judge's side). */
export const isHeld = (flag: Int32Array): boolean => Atomics.load(flag, 0) === 1;

/** Next state of the hold from the utilization of the last period (hysteresis between the two marks). */
export function nextHold(held: boolean, utilization: number): boolean {
  return held ? utilization >= RELEASE_BELOW : utilization >= HOLD_FROM;
}

/** Samples this thread's event loop utilization every PACE_EVERY_MS and sets the flag from it, until stopped. */
export class LoadPacer {
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly flag: Int32Array,
    everyMs = PACE_EVERY_MS,
    /** Told when the hold changes (the progress line says the judge yields). */
    private readonly onChange: (held: boolean) => void = () => undefined,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  /** The utilization since the last sample, and the flag set from it. */
  sample(): number {
    const now = performance.eventLoopUtilization();
    const u = performance.eventLoopUtilization(now, this.last).utilization;
    this.last = now;
    const was = isHeld(this.flag);
    const held = nextHold(was, u);
    Atomics.store(this.flag, 0, held ? 1 : 0);
    if (held !== was) this.onChange(held);
    return u;
  }

  /** Stops sampling and lets the judge go. */
  stop(): void {
    clearInterval(this.timer);
    if (isHeld(this.flag)) this.onChange(false);
    Atomics.store(this.flag, 0, 0);
  }
}
