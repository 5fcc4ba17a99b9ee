/**
 * The run's clock. `now()` is monotonic milliseconds since the run started
 * (performance.now based, fractional), so durations never jump with NTP;
 * `wall()` is epoch milliseconds derived from the same origin, so wall times of
 * one run stay consistent with its monotonic times.
 */
export class RunClock {
  readonly originWall: number;
  readonly originPerf: number;

  constructor(originWall: number = Date.now(), originPerf: number = performance.now()) {
    this.originWall = originWall;
    this.originPerf = originPerf;
  }

  /** Run-monotonic ms (0 = run start). */
  now(): number {
    return performance.now() - this.originPerf;
  }

  /** Epoch ms now. */
  wall(): number {
    return this.originWall + (performance.now() - this.originPerf);
  }

  /** Epoch ms of a run-monotonic time. */
  wallAt(t: number): number {
    return this.originWall + t;
  }
}
