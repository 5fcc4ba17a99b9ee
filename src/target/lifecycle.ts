/**
 * What happens to payments and refunds after the API has answered: processor
 * calls with retries, the state machine (SM rules), 3DS challenges and hosted
 * pages with their expiry, and the events each terminal move emits.
 */
import { SYSTEM_CLOCK, type ServiceClock } from './clock.ts';
import { randomBytes } from 'node:crypto';
import { type CardsFile, type EventType, type PaymentStatus, cardBrand, isTerminal } from '../spec/index.ts';
import type { BugFlags } from './bugs.ts';
import type { CardSecret, MaskedCard, PaymentRecord, RefundRecord } from './model.ts';
import { touch } from './model.ts';
import { type Delays, MAX_PROCESSOR_ERROR_ATTEMPTS } from './options.ts';
import type { Presenter } from './present.ts';
import type { Scheduler } from './scheduler.ts';
import type { PaymentStore } from './store.ts';
import type { UpstreamClient, UpstreamResult } from './upstream.ts';
import type { WebhookDispatcher } from './webhooks.ts';

export interface SandboxPage {
  kind: '3ds' | 'hpp';
  paymentId: string;
  used: boolean;
}

export const PAGE_PATHS = { threeDs: '/sandbox/3ds/', hosted: '/sandbox/hpp/' } as const;

const DECLINE_MESSAGES: Record<string, string> = {
  generic_decline: 'The card was declined.',
  do_not_honor: 'The issuer declined the payment without a reason.',
  insufficient_funds: 'The card has insufficient funds.',
  three_d_secure_failed: 'The customer failed 3D Secure authentication.',
  three_d_secure_timeout: 'The customer did not complete 3D Secure in time.',
};

export function maskCard(c: CardSecret): MaskedCard {
  const brand = cardBrand(c.number);
  return { brand: brand === 'unknown' ? null : brand, last4: c.number.slice(-4), exp_month: c.exp_month, exp_year: c.exp_year, country: 'US' };
}

/** Resolves with the promise's value, or undefined when ms pass first. */
export function withBudget<T>(p: Promise<T>, ms: number, scheduler: Scheduler): Promise<T | undefined> {
  return new Promise((resolve) => {
    const cancel = scheduler.after(ms, () => resolve(undefined));
    void p.then((v) => {
      cancel();
      resolve(v);
    });
  });
}

export class Lifecycle {
  /** Payments whose last processor call got no usable answer (for load shedding). */
  backlog = 0;
  readonly pages = new Map<string, SandboxPage>();
  /** Set once the server listens: redirect URLs point at it. */
  baseUrl = '';

  /** Set by the service for the return-url-at-3ds variant (src/target/options.ts returnUrlAt3ds). */
  returnUrlAtChallenge = false;

  /** Set by the service for the refund-event-minimal variant (src/target/options.ts refundEvent). */
  refundEventMinimal = false;

  constructor(
    private readonly store: PaymentStore,
    private readonly presenter: Presenter,
    private readonly webhooks: WebhookDispatcher,
    private readonly upstream: UpstreamClient,
    private readonly scheduler: Scheduler,
    private readonly delays: Delays,
    private readonly bugs: BugFlags,
    private readonly cards: CardsFile,
    private readonly clock: ServiceClock = SYSTEM_CLOCK,
  ) {}

  isTestCard(number: string): boolean {
    for (const n of Object.values(this.cards)) if (n === number) return true;
    return false;
  }

  testOutcomeOf(number: string): keyof CardsFile | undefined {
    for (const [k, n] of Object.entries(this.cards)) if (n === number) return k as keyof CardsFile;
    return undefined;
  }

  // ------------------------------------------------------------ authorization

  /** One processor call; never rejects. */
  callAuthorization(p: PaymentRecord, threeDs: boolean): Promise<UpstreamResult> {
    p.upstreamAttempts++;
    if (p.firstAttemptMs === 0) p.firstAttemptMs = Date.now();
    const c = p.cardSecret;
    if (!c) return Promise.resolve({ kind: 'unreachable', reason: 'no card' });
    return this.upstream.post('/v1/authorizations', {
      reference: threeDs ? `${p.id}:3ds` : p.id,
      amount: p.amount,
      currency: p.currency,
      livemode: p.mode === 'live',
      card: { number: c.number, exp_month: c.exp_month, exp_year: c.exp_year, cvc: c.cvc },
      // sm-3ds-frictionless: Direct API calls always claim 3DS already passed.
      ...(threeDs || (this.bugs['sm-3ds-frictionless'] && !p.hosted) ? { three_ds: 'success' } : {}),
    });
  }

  /** Applies a processor answer, or schedules the retry. Late answers never move a terminal payment (SM-2). */
  applyAuthorization(p: PaymentRecord, r: UpstreamResult, threeDs: boolean): void {
    if (p.deleted || isTerminal(p.status)) return this.setWaiting(p, false);
    if (r.kind === 'ok') {
      this.setWaiting(p, false);
      const outcome = r.body.outcome;
      if (typeof r.body.provider_reference === 'string' && p.providerReference === null) {
        p.providerReference = r.body.provider_reference;
        touch(p);
      }
      if (outcome === 'approved') {
        // Seeded TEST-3 bug: the hosted flow insists on a challenge before it takes an approval.
        if (this.bugs['test-hpp-requires-3ds'] && p.hosted && !threeDs) return this.fail(p, 'generic_decline', 'The payment was not authenticated.');
        return this.succeed(p);
      }
      if (outcome === 'declined') {
        const code = this.bugs['pay-decline-code-generic'] ? 'generic_decline' : String(r.body.decline_code ?? 'generic_decline');
        return this.fail(p, code);
      }
      if (outcome === 'challenge' && !threeDs) return this.openChallenge(p);
      return this.retry(p, threeDs);
    }
    if (r.kind === 'processor_error') {
      this.setWaiting(p, false);
      p.processorErrors++;
      if (p.processorErrors >= MAX_PROCESSOR_ERROR_ATTEMPTS) return this.fail(p, 'generic_decline', 'The processor could not complete the payment.');
      return this.retry(p, threeDs);
    }
    if (this.bugs['ft-lose-payment-on-upstream-error'] && p.upstreamAttempts === 1) {
      this.store.drop(p);
      return;
    }
    this.setWaiting(p, true);
    if (this.bugs['ft-no-retry-after-outage']) return;
    this.retry(p, threeDs);
  }

  private retry(p: PaymentRecord, threeDs: boolean): void {
    const backoff = Math.min(this.delays.upstreamRetryMaxMs, this.delays.upstreamRetryBaseMs * 2 ** Math.max(0, p.upstreamAttempts - 1));
    if (Date.now() + backoff - p.firstAttemptMs > this.delays.upstreamRetryWindowMs) {
      this.setWaiting(p, false);
      return this.fail(p, 'generic_decline', 'The processor could not be reached in time.');
    }
    this.scheduler.after(backoff, () => {
      if (p.deleted || isTerminal(p.status)) return this.setWaiting(p, false);
      void this.callAuthorization(p, threeDs).then((res) => this.applyAuthorization(p, res, threeDs));
    });
  }

  private setWaiting(p: PaymentRecord, waiting: boolean): void {
    if (p.waitingOnUpstream === waiting) return;
    p.waitingOnUpstream = waiting;
    this.backlog += waiting ? 1 : -1;
  }

  // ------------------------------------------------------------ transitions

  private snapshot(p: PaymentRecord): string | null {
    return this.bugs['wh-stale-payment'] ? this.presenter.paymentJson(p) : null;
  }

  private endPage(p: PaymentRecord): void {
    p.cancelExpiry?.();
    p.cancelExpiry = null;
  }

  succeed(p: PaymentRecord): void {
    // Seeded SM-1 bug: an approval is first shown as `authorized`, and succeeded once the capture completes.
    if (this.bugs['sm-authorized-status'] && (p.status as string) !== 'authorized') {
      p.status = 'authorized' as PaymentStatus;
      touch(p);
      this.scheduler.after(this.delays.refundSettleMs, () => {
        if (!p.deleted && (p.status as string) === 'authorized') this.succeed(p);
      });
      return;
    }
    const before = this.snapshot(p);
    p.status = 'succeeded';
    p.succeededAt = this.clock.seconds();
    if (this.bugs['pay-card-cleared-on-success']) p.card = null;
    if (!this.bugs['pay-next-action-stale']) p.nextAction = null;
    if (!this.bugs['pay-leaks-card-number']) p.cardSecret = null;
    this.endPage(p);
    touch(p);
    this.emitPayment(p, 'payment.succeeded', before);
  }

  fail(p: PaymentRecord, code: string, message?: string): void {
    const before = this.snapshot(p);
    p.status = 'failed';
    p.failedAt = this.clock.seconds();
    p.failureCode = code;
    p.declineMessage = message ?? DECLINE_MESSAGES[code] ?? 'The payment failed.';
    p.nextAction = null;
    if (!this.bugs['pay-leaks-card-number']) p.cardSecret = null;
    this.endPage(p);
    touch(p);
    if (!this.bugs['wh-missing-failed-event']) this.emitPayment(p, 'payment.failed', before);
  }

  expire(p: PaymentRecord, code: string | null): void {
    const before = this.snapshot(p);
    p.status = 'expired';
    if (this.bugs['pay-failed-at-on-expiry']) p.failedAt = this.clock.seconds();
    p.nextAction = null;
    p.failureCode = code;
    p.declineMessage = code ? (DECLINE_MESSAGES[code] ?? null) : null;
    p.cardSecret = null;
    this.endPage(p);
    touch(p);
    this.emitPayment(p, 'payment.expired', before);
  }

  cancel(p: PaymentRecord): void {
    const before = this.snapshot(p);
    p.status = 'canceled';
    p.nextAction = null;
    p.cardSecret = null;
    this.endPage(p);
    touch(p);
    this.emitPayment(p, 'payment.canceled', before);
  }

  private newPage(kind: SandboxPage['kind'], p: PaymentRecord): string {
    const token = randomBytes(12).toString('hex');
    this.pages.set(token, { kind, paymentId: p.id, used: false });
    return `${this.baseUrl}${kind === '3ds' ? PAGE_PATHS.threeDs : PAGE_PATHS.hosted}${token}`;
  }

  openChallenge(p: PaymentRecord): void {
    // return-url-at-3ds variant: return_url is "required when 3DS is triggered", so a Direct API payment without one fails here.
    if (this.returnUrlAtChallenge && p.returnUrl === null && !p.hosted) return this.fail(p, 'generic_decline', 'return_url is required when 3D Secure is triggered.');
    const url = this.newPage('3ds', p);
    this.endPage(p);
    p.status = 'requires_action';
    p.nextAction = { reason: 'three_d_secure', redirectUrl: url };
    touch(p);
    if (!this.bugs['sm-challenge-never-expires']) {
      p.cancelExpiry = this.scheduler.after(this.delays.challengeExpiryMs, () => {
        if (p.status === 'requires_action' && !p.threeDsPassed && p.nextAction?.redirectUrl === url) this.expire(p, 'three_d_secure_timeout');
      });
    }
    if (this.bugs['wh-event-on-pending']) this.emitPayment(p, 'payment.requires_action', null);
  }

  openHostedPage(p: PaymentRecord): void {
    const url = this.newPage('hpp', p);
    p.status = 'requires_action';
    p.nextAction = { reason: 'hosted_payment_page', redirectUrl: url };
    p.hostedPageUrl = url;
    touch(p);
    p.cancelExpiry = this.scheduler.after(this.delays.hostedPageExpiryMs, () => {
      if (p.status === 'requires_action' && p.nextAction?.redirectUrl === url) this.expire(p, null);
    });
  }

  /** The customer finished the challenge: fail now, or authorize with the processor (retried until it answers). */
  complete3ds(p: PaymentRecord, success: boolean): void {
    this.endPage(p);
    if (!success) return this.fail(p, 'three_d_secure_failed');
    p.threeDsPassed = true;
    p.upstreamAttempts = 0;
    p.processorErrors = 0;
    p.firstAttemptMs = 0;
    void this.callAuthorization(p, true).then((r) => this.applyAuthorization(p, r, true));
  }

  /** The hosted page was submitted with a valid card; resolves once the first answer is applied or the budget ends. */
  async submitHosted(p: PaymentRecord, card: CardSecret, liveTestCard: boolean): Promise<void> {
    this.endPage(p);
    p.card = maskCard(card);
    p.cardSecret = card;
    touch(p);
    if (liveTestCard) return this.fail(p, 'generic_decline', 'A live key cannot be used with a test card.');
    // The seeded SM-5 bug tells the processor 3DS already passed.
    const threeDs = this.bugs['sm-hpp-3ds-skips-challenge'];
    const first = this.callAuthorization(p, threeDs);
    const early = await withBudget(first, this.delays.createWaitMs, this.scheduler);
    if (early) this.applyAuthorization(p, early, threeDs);
    else void first.then((r) => this.applyAuthorization(p, r, threeDs));
  }

  // ------------------------------------------------------------ refunds

  callRefund(p: PaymentRecord, r: RefundRecord): Promise<UpstreamResult> {
    r.attempts++;
    if (r.firstAttemptMs === 0) r.firstAttemptMs = Date.now();
    return this.upstream.post('/v1/refunds', { reference: r.id, provider_reference: p.providerReference, amount: r.amount });
  }

  startRefund(p: PaymentRecord, r: RefundRecord): void {
    void this.callRefund(p, r).then((res) => this.applyRefund(p, r, res));
  }

  applyRefund(p: PaymentRecord, r: RefundRecord, res: UpstreamResult): void {
    if (r.status !== 'pending' || this.scheduler.isClosed) return;
    if (res.kind === 'ok' && (res.body.outcome === 'succeeded' || res.body.outcome === 'failed')) {
      if (res.body.outcome === 'succeeded') {
        r.status = 'succeeded';
        p.refundedAmount += r.amount;
        if (p.refundedAmount >= p.amount || (this.bugs['ref-refunded-at-partial'] && p.refundedAt === null)) p.refundedAt ??= this.clock.seconds();
      } else {
        r.status = 'failed';
        p.reservedAmount -= r.amount;
        if (this.bugs['sm-succeeded-to-failed']) {
          p.status = 'failed';
          p.failedAt = this.clock.seconds();
          p.failureCode = 'generic_decline';
        }
      }
      touch(p);
      this.emitRefund(p, r, r.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed');
      return;
    }
    // No usable answer: the refund stays pending and is retried until it settles.
    const backoff = Math.min(this.delays.upstreamRetryMaxMs, this.delays.upstreamRetryBaseMs * 2 ** Math.max(0, r.attempts - 1));
    if (Date.now() + backoff - r.firstAttemptMs > this.delays.upstreamRetryWindowMs) {
      return this.applyRefund(p, r, { kind: 'ok', body: { outcome: 'failed' } });
    }
    this.scheduler.after(backoff, () => this.startRefund(p, r));
  }

  // ------------------------------------------------------------ events

  private emitPayment(p: PaymentRecord, type: EventType | string, snapshot: string | null): void {
    if (!this.webhooks.enabled) return;
    this.webhooks.emit(type, p.merchant, p.mode, 'payment', snapshot !== null ? () => snapshot : () => this.presenter.paymentJson(p));
  }

  private emitRefund(p: PaymentRecord, r: RefundRecord, type: EventType): void {
    if (!this.webhooks.enabled) return;
    const payload = () => (this.refundEventMinimal ? JSON.stringify({ payment_id: p.id, amount: r.amount, status: r.status }) : JSON.stringify(this.presenter.refund(r, { forWebhook: true })));
    this.webhooks.emit(type, p.merchant, p.mode, 'refund', payload);
  }

  /** For the seeded WH-6 bug: an event for a payment that was just created pending. */
  emitCreatedPending(p: PaymentRecord): void {
    if (this.bugs['wh-event-on-pending']) this.emitPayment(p, 'payment.pending', null);
  }
}
