/** Which payments the settle-time rules (SM-6, FT-2) judge, and when they were last seen unsettled. */
import type { PaymentFacts } from '../ledger.ts';
import type { OracleContext } from '../types.ts';

/**
 * A payment whose outcome depends only on the service: not hosted and never waiting on a
 * customer (3DS), and not made with the card that simulates an upstream error (it retries).
 */
export function settleEligible(ctx: OracleContext, p: PaymentFacts): boolean {
  if (p.hosted || p.cardOutcome === 'three_ds_challenge' || p.cardOutcome === 'upstream_error') return false;
  return !ctx.ledger.paymentSpans.seen(p.id, 'requires_action') && !ctx.ledger.threeDs.has(p.id);
}

/** The latest start of an observation still showing the outcome unknown (pending / processing). */
export function lastUnsettled(ctx: OracleContext, id: string): { t: number; seq: number } {
  const a = ctx.ledger.paymentSpans.lastStart(id, 'pending');
  const b = ctx.ledger.paymentSpans.lastStart(id, 'processing');
  return a.t >= b.t ? a : b;
}
