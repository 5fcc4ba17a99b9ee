/** Webhook delivery helpers. */
import type { Finding } from '../../spec/index.ts';
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

/**
 * Which merchants' events a run can expect. Each merchant sets its endpoint in its own portal:
 * against a deployment paystorm did not start, a merchant none of whose payments got any event
 * may simply not point at the receiver, so only merchants with at least one event are judged.
 * On the embedded target paystorm wires every merchant itself: null, all are judged.
 */
export class EventMerchants {
  /** Null on the embedded target: nothing to track. */
  private readonly merchants: Set<string | undefined> | null;
  /** Payments an event named before the ledger knew them (resolved at the end). */
  private readonly unresolved = new Set<string>();
  private readonly skipped = new Map<string, number>();

  constructor(private readonly ctx: OracleContext) {
    this.merchants = ctx.run?.target.embedded === false ? new Set() : null;
  }

  /** A delivery about this payment arrived. */
  saw(paymentId: string | undefined): void {
    if (!this.merchants || !paymentId) return;
    const facts = this.ctx.ledger.payments.get(paymentId);
    if (facts) this.merchants.add(facts.merchant);
    else this.unresolved.add(paymentId);
  }

  /** Whether events are due for payments of this merchant; counts those skipped for the finding. */
  expects(merchant: string | undefined): boolean {
    if (!this.merchants) return true;
    for (const id of this.unresolved) this.merchants.add(this.ctx.ledger.payments.get(id)?.merchant);
    this.unresolved.clear();
    if (this.merchants.has(merchant)) return true;
    const m = merchant ?? '(unknown merchant)';
    this.skipped.set(m, (this.skipped.get(m) ?? 0) + 1);
    return false;
  }

  /** A warning naming the merchants not judged, or null. */
  finding(id: string, rule: string, what: string): Finding | null {
    if (this.skipped.size === 0) return null;
    const list = [...this.skipped].map(([m, n]) => `${m} (${n} ${what})`).join(', ');
    return {
      id,
      level: 'warning',
      text: `No webhook event arrived for any payment of ${list}, so ${rule} was not judged for them: each merchant sets its endpoint in its own portal. If theirs points at paystorm's receiver, the missing events are a ${rule} violation.`,
      rules: [rule],
    };
  }
}
