/**
 * Renders records in the deployment's presentation (src/spec/payment.ts).
 * Presentation A also carries `refunds`, `refunded_at`, `metadata` and
 * `merchant_reference` (documented extensions) so refund rules stay checkable.
 */
import { type Presentation, statusToWire } from '../spec/index.ts';
import type { BugFlags } from './bugs.ts';
import type { PaymentRecord, RefundRecord } from './model.ts';

export class Presenter {
  constructor(
    readonly presentation: Presentation,
    private readonly bugs: BugFlags,
  ) {}

  /** The payment as GET returns it now; cached until the record changes. */
  paymentJson(p: PaymentRecord): string {
    if (p.cachedJson !== null && p.cachedVersion === p.version) return p.cachedJson;
    const json = JSON.stringify(this.presentation === 'A' ? this.paymentA(p) : this.paymentB(p));
    p.cachedJson = json;
    p.cachedVersion = p.version;
    return json;
  }

  refund(r: RefundRecord, opts: { forWebhook?: boolean } = {}): Record<string, unknown> {
    const out: Record<string, unknown> = { id: r.id, object: 'refund', payment_id: r.paymentId, amount: r.amount, status: r.status };
    if (opts.forWebhook && this.bugs['wh-refund-event-missing-payment-id']) delete out.payment_id;
    if (this.presentation === 'A') out.created_at = r.created;
    else out.created = r.created;
    return out;
  }

  private refundsOf(p: PaymentRecord): Record<string, unknown>[] {
    const list = this.bugs['ref-not-listed'] ? p.refunds.filter((r) => r.status !== 'failed') : p.refunds;
    return list.map((r) => this.refund(r));
  }

  private refundedAmount(p: PaymentRecord): number {
    if (this.bugs['ref-counts-pending']) return p.refunds.reduce((s, r) => s + r.amount, 0);
    return p.refundedAmount;
  }

  private amount(p: PaymentRecord): number {
    return this.bugs['pay-amount-mutates'] ? p.amount - p.refundedAmount : p.amount;
  }

  private card(p: PaymentRecord, withCountry: boolean): Record<string, unknown> | null {
    // pay-hosted-empty-card: a serializer that always emits the nested object (B).
    if (!p.card && p.hosted && withCountry && this.bugs['pay-hosted-empty-card']) return { brand: null, last4: null, exp_month: null, exp_year: null, country: null };
    if (!p.card) return null;
    const c: Record<string, unknown> = { brand: p.card.brand, last4: p.card.last4, exp_month: p.card.exp_month, exp_year: p.card.exp_year };
    if (withCountry) c.country = p.card.country;
    if (this.bugs['pay-leaks-card-number'] && p.cardSecret) c.number = p.cardSecret.number;
    return c;
  }

  private paymentA(p: PaymentRecord): Record<string, unknown> {
    const refunded = this.refundedAmount(p);
    return {
      id: p.id,
      amount: this.amount(p),
      currency: p.currency,
      status: statusToWire(p.status, 'A'),
      integration_type: p.hosted ? 'HOSTED_PAYMENT_PAGE' : 'DIRECT_API',
      next_action: p.nextAction ? { type: 'redirect', reason: p.nextAction.reason, redirect_url: p.nextAction.redirectUrl } : null,
      livemode: p.mode === 'live',
      created_at: p.created,
      amount_refunded: refunded,
      // pay-refundable-before-success: the status check is missing.
      amount_refundable: p.status === 'succeeded' || this.bugs['pay-refundable-before-success'] ? Math.max(0, p.amount - p.reservedAmount) : 0,
      card: this.card(p, false),
      failure_code: p.failureCode,
      merchant_reference: p.merchantReference,
      description: p.description,
      metadata: p.metadata,
      refunded_at: p.refundedAt,
      refunds: this.refundsOf(p),
    };
  }

  private paymentB(p: PaymentRecord): Record<string, unknown> {
    return {
      id: p.id,
      object: 'payment',
      amount: this.amount(p),
      currency: p.currency.toLowerCase(),
      status: statusToWire(p.status, 'B'),
      created: p.created,
      livemode: p.mode === 'live',
      description: p.description,
      card: this.card(p, true),
      customer: p.customer,
      metadata: p.metadata,
      merchant_reference: p.merchantReference,
      decline_code: p.failureCode,
      decline_message: p.declineMessage,
      redirect_url: p.hostedPageUrl ?? (this.bugs['pay-redirect-url-on-3ds'] ? (p.nextAction?.redirectUrl ?? null) : null),
      refunded_at: p.refundedAt,
      succeeded_at: p.succeededAt,
      failed_at: p.failedAt,
      next_action: p.nextAction ? { type: 'redirect', reason: p.nextAction.reason, redirect_url: p.nextAction.redirectUrl } : null,
      refunded_amount: this.refundedAmount(p),
      refunds: this.refundsOf(p),
      provider_reference: p.providerReference,
    };
  }
}
