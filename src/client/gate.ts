/** The run's request budget, and the error a client call throws once the run has stopped sending. */

/** The run's request budget: asked before every request. */
export interface RequestGate {
  /** True when one more request may be sent. */
  admit(): boolean;
  /** Why the run stopped sending (when admit() said no). */
  readonly stopReason: string;
}

/** Thrown by a client call once the run has stopped sending (cap hit, interrupted). Not a scenario failure. */
export class RunStoppedError extends Error {
  constructor(readonly reason: string) {
    super(`run stopped: ${reason}`);
    this.name = 'RunStoppedError';
  }
}
