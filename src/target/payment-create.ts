/**
 * Creating payments: the Direct API create (validation, card checks, the first
 * processor call within the create's wait, the answer A or B gives) and the
 * hosted-page create. What happens after the answer is lifecycle.ts's.
 */
import { randomUUID } from 'node:crypto';
import { luhnValid } from '../spec/index.ts';
import type { ApiKey } from './auth.ts';
import type { BugFlags } from './bugs.ts';
import type { ApiResult, ErrorWriter } from './errors.ts';
import { JSON_TYPE } from './http.ts';
import { type Lifecycle, maskCard, withBudget } from './lifecycle.ts';
import type { PaymentRecord } from './model.ts';
import type { Delays, ServiceOptions } from './options.ts';
import type { Presenter } from './present.ts';
import type { Scheduler } from './scheduler.ts';
import type { PaymentStore } from './store.ts';
import type { UpstreamResult } from './upstream.ts';
import { type ParsedCreate, type ValidateOptions, isExpired, validateDirectCreate, validateHostedCreate } from './validate.ts';

type Json = Record<string, unknown>;

export class PaymentCreator {
  /** performance.now() at construction: the slow-leak option's delay grows from here. */
  private readonly startedAt = performance.now();
  /** pay-valid-create-refused: valid creates seen, to refuse every fifth. */
  private validCreates = 0;

  constructor(
    private readonly store: PaymentStore,
    private readonly presenter: Presenter,
    private readonly errors: ErrorWriter,
    private readonly lifecycle: Lifecycle,
    private readonly scheduler: Scheduler,
    private readonly delays: Delays,
    /** The validation choices of the conforming variants (validationOptions in validate.ts). */
    private readonly validation: ValidateOptions,
    private readonly options: ServiceOptions,
    private readonly bugs: BugFlags,
  ) {}

  async create(key: ApiKey, body: Json, rid: string): Promise<ApiResult> {
    const slowMs = (this.options.slowCreateMs ?? 0) + ((this.options.slowCreateGrowthMsPerMin ?? 0) * (performance.now() - this.startedAt)) / 60_000;
    if (slowMs > 0) await new Promise((r) => setTimeout(r, slowMs));
    const v = validateDirectCreate(body, this.bugs, this.options.cards, this.validation);
    if (!v.ok) return this.errors.make(rid, 'parameter_invalid', v.message, v.param);
    if (this.currencyTableEmpty()) return this.errors.make(rid, 'parameter_invalid', 'Invalid currency: expected an ISO 4217 code.', 'currency');
    const input = v.value;
    const card = input.card!;
    const testOutcome = this.lifecycle.testOutcomeOf(card.number);
    if (key.mode === 'live' && testOutcome && !this.bugs['auth-live-accepts-test-card']) {
      return this.cardDeclined(rid, 'generic_decline', 'Your card was declined: a live API key cannot be used with a test card.');
    }
    if (!luhnValid(card.number)) return this.cardDeclined(rid, 'invalid_number', 'Your card was declined: the card number is invalid.');
    if (isExpired(card)) return this.cardDeclined(rid, 'expired_card', 'Your card was declined: the card has expired.');
    if (this.bugs['test-decline-422'] && (testOutcome === 'do_not_honor' || testOutcome === 'insufficient_funds')) {
      return this.cardDeclined(rid, testOutcome, 'Your card was declined.');
    }
    if ((this.bugs['idem-dedupes-merchant-reference'] || this.bugs['idem-refuses-reused-merchant-reference']) && input.merchantReference !== null) {
      const earlier = this.store.byMerchantReference(key.partition, input.merchantReference);
      if (earlier && !earlier.deleted) {
        if (this.bugs['idem-refuses-reused-merchant-reference']) return this.errors.make(rid, 'action_not_allowed', `A payment with merchant_reference ${input.merchantReference} already exists.`);
        return { status: 201, body: this.presenter.paymentJson(earlier), contentType: JSON_TYPE };
      }
    }
    if (this.lifecycle.backlog >= this.options.upstreamBacklogLimit) {
      return this.errors.make(rid, 'service_unavailable', 'The payment processor is temporarily unavailable; retry with the same Idempotency-Key.');
    }
    const p = this.newPayment(key, input, false);
    p.card = maskCard(card);
    p.cardSecret = card;
    this.store.add(p);
    this.lifecycle.emitCreatedPending(p);
    const first = this.lifecycle.callAuthorization(p, false);
    // sync-create-outcome variants: wait long enough for the 3DS challenge to be known, with room for a busy host (bounded).
    const sync = this.options.syncCreateOutcome;
    const budgetMs = sync ? 2 * this.delays.challengeAppearMs + this.delays.createWaitMs : this.delays.createWaitMs;
    const early = await withBudget(first, budgetMs, this.scheduler);
    // Seeded PAY-7 bug: a decline known within the wait is answered as an HTTP error (402), the payment discarded.
    if (early && this.bugs['pay-decline-402'] && early.kind === 'ok' && early.body.outcome === 'declined') {
      this.store.drop(p);
      return { ...this.cardDeclined(rid, String(early.body.decline_code ?? 'generic_decline'), 'Your card was declined.'), status: 402 };
    }
    // Seeded FT-4 bug: a first processor call that failed escapes the handler as an exception (500), the payment discarded.
    if (early && this.bugs['ft-500-on-upstream-error'] && early.kind === 'unreachable') {
      this.store.drop(p);
      return this.errors.make(rid, 'internal_error', 'An internal error occurred.');
    }
    // Seeded FT-3 bug: the first processor call failed, so the client is told 503, yet the stored payment is kept and retried.
    if (early?.kind === 'unreachable' && this.bugs['ft-503-after-store']) {
      this.lifecycle.applyAuthorization(p, early, false);
      return this.errors.make(rid, 'service_unavailable', 'The payment processor is temporarily unavailable; retry with the same Idempotency-Key.');
    }
    // Presentation A may answer the outcome; B answers pending unless 3DS is already known.
    // return-url-at-3ds: a challenge without return_url fails the payment, which B's create response may not show.
    const failsAtChallenge = this.options.returnUrlAt3ds && p.returnUrl === null;
    const applyNow = sync
      ? // Only a known outcome other than a decline: test-mode decline cards answer pending, then fail.
        early !== undefined && ((isChallenge(early) && !failsAtChallenge) || (this.options.presentation === 'A' && isApproved(early)))
      : early !== undefined && (this.options.presentation === 'A' || (isChallenge(early) && !failsAtChallenge));
    if (applyNow && early) this.lifecycle.applyAuthorization(p, early, false);
    // Seeded PAY-6 bug: presentation B also answers an approval known within the wait (succeeded).
    if (!applyNow && early && this.bugs['pay-create-answers-outcome'] && early.kind === 'ok' && early.body.outcome === 'approved') this.lifecycle.applyAuthorization(p, early, false);
    const json = this.createAnswer(p);
    if (!applyNow) void first.then((r) => this.lifecycle.applyAuthorization(p, r, false));
    return { status: 201, body: json, contentType: JSON_TYPE };
  }

  createHosted(key: ApiKey, body: Json, rid: string): ApiResult {
    const v = validateHostedCreate(body, this.bugs, this.validation);
    if (!v.ok) return this.errors.make(rid, 'parameter_invalid', v.message, v.param);
    if (this.currencyTableEmpty()) return this.errors.make(rid, 'parameter_invalid', 'Invalid currency: expected an ISO 4217 code.', 'currency');
    const p = this.newPayment(key, v.value, true);
    this.lifecycle.openHostedPage(p);
    this.store.add(p);
    return { status: 201, body: this.createAnswer(p), contentType: JSON_TYPE };
  }

  /** A create's answer: the payment as GET returns it (the seeded AUTH-5 bug says livemode false there). */
  private createAnswer(p: PaymentRecord): string {
    const json = this.presenter.paymentJson(p);
    return this.bugs['auth-create-livemode-false'] ? json.replace('"livemode":true', '"livemode":false') : json;
  }

  /** Seeded PAY-1 bug: the currency cache is reloaded, and read empty, on every fifth valid create. */
  private currencyTableEmpty(): boolean {
    return this.bugs['pay-valid-create-refused'] && ++this.validCreates % 5 === 0;
  }

  private cardDeclined(rid: string, declineCode: string, message: string): ApiResult {
    return this.errors.make(rid, 'card_declined', message, 'card', declineCode);
  }

  private newPayment(key: ApiKey, input: ParsedCreate, hosted: boolean): PaymentRecord {
    const createdMs = this.store.nextCreatedMs();
    const uuid = randomUUID();
    return {
      // pay-id-not-uuid: B ids in A's form (hyphens stripped).
      id: this.options.presentation === 'B' && !this.bugs['pay-id-not-uuid'] ? `pay_${uuid}` : `pay_${uuid.replace(/-/g, '')}`,
      seq: this.store.nextSeq(),
      merchant: key.merchant,
      mode: key.mode,
      partition: key.partition,
      hosted,
      // processing-status-a variant: an outcome not yet known is PROCESSING (B shows it as pending).
      status: hosted ? 'pending' : (this.options.unknownOutcomeStatus ?? 'pending'),
      amount: input.amount,
      currency: input.currency,
      created: Math.floor(createdMs / 1000),
      createdMs,
      description: input.description,
      metadata: input.metadata,
      merchantReference: input.merchantReference,
      returnUrl: input.returnUrl,
      customer: input.customer,
      card: null,
      cardSecret: null,
      nextAction: null,
      hostedPageUrl: null,
      failureCode: null,
      declineMessage: null,
      providerReference: null,
      succeededAt: null,
      failedAt: null,
      refundedAt: null,
      refunds: [],
      refundedAmount: 0,
      reservedAmount: 0,
      listIndex: -1,
      version: 0,
      cachedJson: null,
      cachedVersion: -1,
      processorErrors: 0,
      upstreamAttempts: 0,
      firstAttemptMs: 0,
      waitingOnUpstream: false,
      threeDsPassed: false,
      cancelExpiry: null,
      deleted: false,
    };
  }
}

function isChallenge(r: UpstreamResult): boolean {
  return r.kind === 'ok' && r.body.outcome === 'challenge';
}

function isApproved(r: UpstreamResult): boolean {
  return r.kind === 'ok' && r.body.outcome === 'approved';
}
