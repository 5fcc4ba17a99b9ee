/**
 * Creating a refund (REF rules), by either path: the checks on the payment and the
 * amount, the refund reserved on the payment, and the answer (options.refundResponse).
 * The processor call and its outcome are lifecycle.ts's.
 */
import { randomUUID } from 'node:crypto';
import type { ApiKey } from './auth.ts';
import type { BugFlags } from './bugs.ts';
import type { ServiceClock } from './clock.ts';
import type { ApiResult, ErrorWriter } from './errors.ts';
import { JSON_TYPE } from './http.ts';
import type { Lifecycle } from './lifecycle.ts';
import { type PaymentRecord, type RefundRecord, touch } from './model.ts';
import type { ServiceOptions } from './options.ts';
import type { Presenter } from './present.ts';
import type { PaymentStore } from './store.ts';
import type { UpstreamResult } from './upstream.ts';
import { visibleTo } from './visibility.ts';

type Json = Record<string, unknown>;

export class RefundCreator {
  constructor(
    private readonly store: PaymentStore,
    private readonly presenter: Presenter,
    private readonly errors: ErrorWriter,
    private readonly lifecycle: Lifecycle,
    private readonly clock: ServiceClock,
    private readonly options: ServiceOptions,
    private readonly bugs: BugFlags,
  ) {}

  /** A refund of the payment named by the path (POST /v1/payments/{id}/refund) or by the body's payment_id (POST /v1/refunds). */
  async create(key: ApiKey, body: Json, rid: string, pathPaymentId?: string): Promise<ApiResult> {
    let paymentId = pathPaymentId;
    if (paymentId === undefined) {
      if (body.payment_id === undefined || body.payment_id === null) return this.errors.make(rid, 'parameter_invalid', 'Missing required parameter: payment_id.', 'payment_id');
      if (typeof body.payment_id !== 'string') return this.errors.make(rid, 'parameter_invalid', 'Invalid payment_id: expected a payment id string.', 'payment_id');
      paymentId = body.payment_id;
    }
    let amount = body.amount;
    // Seeded REF-4 bug: `amount || remaining` with a lenient parse: 0, a string or a fraction refunds what is left.
    if (this.bugs['ref-accepts-bad-amount'] && amount !== undefined && !(Number.isSafeInteger(amount) && (amount as number) >= 1)) amount = undefined;
    if (amount !== undefined && amount !== null && (!Number.isSafeInteger(amount) || (amount as number) < 1)) {
      return this.errors.make(rid, 'parameter_invalid', 'Invalid amount: expected an integer of at least 1 (minor units).', 'amount');
    }
    const p = this.store.get(paymentId);
    // Seeded SEC-1 bug: looked up by mode only; the merchant is asserted only after the refund was handled (as if the owner had asked).
    if (this.bugs['sec-cross-merchant-refund-500'] && p && p.mode === key.mode && p.merchant !== key.merchant) {
      await this.create({ ...key, merchant: p.merchant, partition: p.partition }, body, rid, pathPaymentId);
      return this.errors.make(rid, 'internal_error', 'An internal error occurred.');
    }
    if (!visibleTo(key, p, this.bugs)) return this.errors.make(rid, 'resource_missing', `No such payment: '${paymentId}'.`, pathPaymentId !== undefined ? 'id' : 'payment_id');
    if (p.status !== 'succeeded' && !this.bugs['ref-allows-unsucceeded']) {
      return this.errors.make(rid, 'action_not_allowed', `Refund validation failed [payment_not_succeeded]: the payment is ${p.status}; only succeeded payments can be refunded.`);
    }
    const remaining = p.amount - p.reservedAmount;
    const wanted = (amount as number | undefined) ?? remaining;
    if (wanted > remaining || wanted < 1) {
      const message =
        remaining <= 0
          ? 'Refund validation failed [already_refunded]: the payment has no refundable amount left.'
          : `Refund validation failed [amount_exceeds_refundable]: ${wanted} exceeds the refundable amount ${remaining}.`;
      if (this.bugs['ref-wrong-code']) return this.errors.make(rid, 'parameter_invalid', message, 'amount');
      return this.errors.make(rid, 'action_not_allowed', message, 'amount');
    }
    const r: RefundRecord = { id: `re_${randomUUID().replace(/-/g, '')}`, paymentId: p.id, amount: wanted, status: 'pending', created: this.clock.seconds(), attempts: 0, firstAttemptMs: 0 };
    if (this.bugs['ref-no-lock']) {
      // Seeded REF-3 bug: submit first, record after, with nothing held in between.
      const res = await this.lifecycle.callRefund(p, r);
      this.attachRefund(p, r);
      void Promise.resolve().then(() => this.lifecycle.applyRefund(p, r, res as UpstreamResult));
      return { status: 201, body: this.refundAnswer(p, r), contentType: JSON_TYPE };
    }
    this.attachRefund(p, r);
    const json = this.refundAnswer(p, r);
    if (!this.bugs['ref-stuck-pending']) this.lifecycle.startRefund(p, r);
    return { status: 201, body: json, contentType: JSON_TYPE };
  }

  /** The refund call's body (not shown by the spec): a Refund, the Payment, or a minimal object (options.refundResponse). */
  private refundAnswer(p: PaymentRecord, r: RefundRecord): string {
    if (this.options.refundResponse === 'payment') return this.presenter.paymentJson(p);
    if (this.options.refundResponse === 'minimal') return JSON.stringify({ id: r.id, status: r.status, payment_id: p.id });
    return JSON.stringify(this.presenter.refund(r));
  }

  private attachRefund(p: PaymentRecord, r: RefundRecord): void {
    p.refunds.push(r);
    p.reservedAmount += r.amount;
    touch(p);
  }
}
