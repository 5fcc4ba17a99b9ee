/**
 * States a payment must have passed through, whether or not a poll saw them. Polling samples
 * a payment's statuses, and a short-lived state (a 3DS challenge that times out before the
 * first poll) can fall between two polls. No invariant may conclude that a state never happened
 * when the state machine says it must have: EXPIRED is reached only from REQUIRES_ACTION (3DS
 * time-out or hosted-page expiry), and the three_d_secure_* failure codes name a challenge.
 */
import type { OracleContext } from '../types.ts';

/** Failure codes that only a 3DS challenge (opened, then failed, timed out or errored) can give. */
const CHALLENGE_CODES = new Set(['three_d_secure_failed', 'three_d_secure_timeout', 'three_d_secure_error']);

/**
 * Whether the payment was certainly in requires_action at some point: seen there, seen with a
 * 3DS next_action, or ended in a way only requires_action leads to (expired, or failed with a
 * three_d_secure_* code other than three_d_secure_not_supported).
 */
export function passedRequiresAction(ctx: OracleContext, id: string): boolean {
  const { ledger } = ctx;
  if (ledger.paymentSpans.seen(id, 'requires_action') || ledger.threeDs.has(id)) return true;
  return endedFromRequiresAction(ctx, id);
}

/** Ended in a status or with a code that only requires_action leads to. */
export function endedFromRequiresAction(ctx: OracleContext, id: string): boolean {
  const { ledger } = ctx;
  if (ledger.paymentSpans.seen(id, 'expired')) return true;
  const code = ledger.failureCodeOf(id);
  return ledger.paymentSpans.seen(id, 'failed') && code !== null && code !== undefined && CHALLENGE_CODES.has(code);
}
