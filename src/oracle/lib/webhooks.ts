/** Webhook delivery helpers. */
import type { WebhookRecord } from '../../history/index.ts';
import type { OracleContext } from '../types.ts';
import { DELIVERY_GRACE_MS } from '../../spec/tolerances.ts';

/** The receiver answered 2xx in time. */
export function delivered(w: WebhookRecord): boolean {
  return w.answered >= 200 && w.answered < 300;
}

/** What an event is about: its type and the payment or refund id. */
export function eventSubject(w: WebhookRecord): string | null {
  const id = w.payment?.id ?? w.refund?.id;
  return w.type && id ? `${w.type}|${id}` : null;
}

/**
 * How long before the end of the run a status must have been seen for its event to be
 * due: the ack time plus a grace of 30 s of the target's own time (scaled).
 */
export function deliveryGraceMs(ctx: OracleContext): number {
  return (ctx.webhooks?.ackTimeoutMs ?? 10_000) + DELIVERY_GRACE_MS * ctx.timeScale;
}
