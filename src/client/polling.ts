/** Polling a payment until it settles, at the spec's polling guidance (1-3 s, scaled). */
import { LIMITS, isTerminal, type CallOptions, type CanonicalPayment, type ExchangeResult } from '../spec/index.ts';
import { RunStoppedError } from './gate.ts';
import { abortableSleep, type Clock } from './timing.ts';

/** What polling needs of the run: its clock, time scale and stop signal. */
export interface PollContext {
  readonly clock: Clock;
  readonly timeScale: number;
  readonly signal: AbortSignal | undefined;
}

export type PollOptions = CallOptions & { maxWaitMs?: number; until?: (p: CanonicalPayment) => boolean };

/**
 * Retrieves the payment until `until` (default: a terminal status) holds or `maxWaitMs` passes;
 * returns the last payment seen (null if none), also when the run stops sending.
 */
export async function pollUntilSettled(
  retrieve: (paymentId: string, opts: CallOptions) => Promise<ExchangeResult>,
  ctx: PollContext,
  paymentId: string,
  opts: PollOptions = {},
): Promise<CanonicalPayment | null> {
  const deadline = ctx.clock.now() + (opts.maxWaitMs ?? 60_000 * ctx.timeScale);
  const done = opts.until ?? ((p: CanonicalPayment) => isTerminal(p.status));
  // Polling guidance: 1-3 s (scaled); start at the low end and widen.
  let interval: number = LIMITS.pollIntervalMinMs;
  let last: CanonicalPayment | null = null;
  const { maxWaitMs: _m, until: _u, ...callOpts } = opts;
  for (;;) {
    if (ctx.signal?.aborted) return last;
    let r: ExchangeResult;
    try {
      r = await retrieve(paymentId, callOpts);
    } catch (err) {
      if (err instanceof RunStoppedError) return last;
      throw err;
    }
    if (r.payment) {
      last = r.payment;
      if (done(r.payment)) return r.payment;
    }
    const left = deadline - ctx.clock.now();
    if (left <= 0) return last;
    await abortableSleep(Math.min(left, Math.max(20, interval * ctx.timeScale)), ctx.signal);
    interval = Math.min(LIMITS.pollIntervalMaxMs, interval * 1.5);
  }
}
