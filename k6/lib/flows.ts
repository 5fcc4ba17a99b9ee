/**
 * Payment flows the k6 scenarios share: inputs, creates with their checks, polling
 * until settled (the spec's polling guidance), refunds, lists, retrievals, and the
 * presentation detection setup() runs. Rules come from src/spec (pure modules only).
 */
import http from 'k6/http';
import { sleep } from 'k6';
import {
  normalizePayment,
  normalizeList,
  normalizeRefund,
  detectPresentation,
  PAYMENT_ID_B_PATTERN,
  PAYMENT_ID_PREFIX,
  type CanonicalPayment,
  type Presentation,
} from '../../src/spec/payment.ts';
import { CREATE_STATUSES, isAllowedTransition, isTerminal, type PaymentStatus } from '../../src/spec/statuses.ts';
import { directCreateBody, hostedCreateBody, type CardInput, type PaymentInput } from '../../src/spec/inputs.ts';
import { LIMITS } from '../../src/spec/limits.ts';
import { HPP_FORM_FIELDS, THREE_DS_RESULT_PARAM } from '../../src/spec/sandbox.ts';
import { Api, endOf, lowerHeaders, type ApiResult } from './api.ts';
import { recordExchange } from './record.ts';
import { CARD_EXPECTED, cvcLength, type CardsFile } from '../../src/spec/cards.ts';
import { REFUND_PLANS, type KeyConfig, type LoadOutcome, type MixedConfig, type RefundPlan } from './config.ts';
import { expect, flushChecks } from './checks.ts';
import { randInt } from './ids.ts';
import { paymentsCreated, settleTime } from './metrics.ts';

export const RETURN_URL = 'https://merchant.example/paystorm/return';

export interface FlowCtx {
  api: Api;
  presentation: Presentation;
  cfg: MixedConfig;
  cards: CardsFile;
}

// ---------------------------------------------------------------- inputs

/** A test card: any future expiry, a CVC of the right length, any holder (TEST-2). */
export function cardInput(number: string): CardInput {
  let cvc = '';
  for (let i = 0; i < cvcLength(number); i++) cvc += String(randInt(0, 9));
  return { number, exp_month: randInt(1, 12), exp_year: new Date().getUTCFullYear() + randInt(1, 5), cvc, holder_name: 'Paystorm K6' };
}

export function paymentInput(currency: string, presentation: Presentation, card?: CardInput): PaymentInput {
  return {
    amount: randInt(100, 50_000),
    currency,
    ...(card ? { card } : {}),
    description: 'paystorm k6',
    // Presentation A's input table has no metadata.
    ...(presentation === 'B' ? { metadata: { source: 'paystorm-k6' } } : {}),
    merchantReference: randInt(LIMITS.merchantReferenceMin, LIMITS.merchantReferenceMax),
    returnUrl: RETURN_URL,
  };
}

// ---------------------------------------------------------------- per-payment checks

function samePaymentData(p: CanonicalPayment, input: Pick<PaymentInput, 'amount' | 'currency'>): boolean {
  return p.amount === input.amount && p.currency === input.currency.toUpperCase();
}

/** Checks any returned payment must pass, whatever its status. */
export function paymentChecks(p: CanonicalPayment, key: KeyConfig, input: Pick<PaymentInput, 'amount' | 'currency'> | null): void {
  expect('AUTH-5: livemode matches the key mode', p.livemode === (key.mode === 'live'));
  const na = p.nextAction;
  expect(
    'PAY-11: next_action is non-null exactly when requires_action, with type redirect and a redirect_url',
    (na !== null) === (p.status === 'requires_action') && (na === null || (na.type === 'redirect' && typeof na.redirectUrl === 'string' && na.redirectUrl !== '')),
  );
  if (p.presentation === 'B') {
    expect('PAY-14: succeeded_at is set exactly when succeeded, failed_at exactly when failed', (p.succeededAt !== null) === (p.status === 'succeeded') && (p.failedAt !== null) === (p.status === 'failed'));
  }
  if (input) expect('PAY-8: amount and currency are the ones sent and never change', samePaymentData(p, input));
  if (p.presentation === 'A' && p.amountRefundable !== null && p.amountRefunded !== null) {
    expect(
      'PAY-10: amount_refundable is 0 before success and never exceeds amount - amount_refunded',
      p.status === 'succeeded' ? p.amountRefundable <= p.amount - p.amountRefunded : p.amountRefundable === 0,
    );
  }
}

/** PAY-1 (and B's id form), PAY-6 or PAY-12/13, PAY-8, PAY-9; returns the payment or null. */
export function createChecks(r: ApiResult, ctx: FlowCtx, input: PaymentInput, hosted: boolean): CanonicalPayment | null {
  const p = r.status === 201 ? normalizePayment(r.json) : null;
  const idOk = p !== null && p.id.indexOf(PAYMENT_ID_PREFIX) === 0 && (p.presentation === 'A' || (PAYMENT_ID_B_PATTERN.test(p.id) && (r.json as Record<string, unknown>).object === 'payment'));
  expect('PAY-1: a create returns 201 with a pay_ Payment', idOk);
  if (!p) return null;
  paymentsCreated.add(1);
  if (hosted) {
    const na = p.nextAction;
    expect(
      'PAY-12: a hosted create is requires_action with next_action {redirect, hosted_payment_page, redirect_url}',
      p.status === 'requires_action' && na !== null && na.type === 'redirect' && (p.presentation === 'B' || na.reason === 'hosted_payment_page') && !!na.redirectUrl && (p.presentation === 'B' || p.hosted === true),
    );
    if (p.presentation === 'B') {
      expect('PAY-12: a hosted payment has card null until the page is completed', p.card === null);
      expect('PAY-13: redirect_url is set for hosted payments', p.redirectUrl !== null);
    }
  } else {
    expect('PAY-6: the create status is allowed for a new payment', CREATE_STATUSES[p.presentation].has(p.status));
    if (p.presentation === 'B') expect('PAY-13: redirect_url is null for Direct API payments', p.redirectUrl === null);
  }
  if (input.card) expect('PAY-9: no full card number is returned', r.body.indexOf(input.card.number) < 0);
  paymentChecks(p, ctx.api.key, input);
  return p;
}

// ---------------------------------------------------------------- polling

export interface PollResult {
  payment: CanonicalPayment | null;
  /** Date.now() when `until` first held, or null. */
  metAt: number | null;
  polls: number;
}

/**
 * Polls GET every `intervalS` (the spec's guidance: 1-3 s) until `until` holds or
 * `maxWaitS` passes. Checks SM-1 (and SM-2) on every observed pair of statuses.
 */
export function poll(
  ctx: FlowCtx,
  id: string,
  first: CanonicalPayment,
  until: (p: CanonicalPayment) => boolean,
  maxWaitS: number,
  input: Pick<PaymentInput, 'amount' | 'currency'> | null,
  cardNumber?: string,
): PollResult {
  let last = first;
  if (until(last)) return { payment: last, metAt: Date.now(), polls: 0 };
  const deadline = Date.now() + maxWaitS * 1000;
  let polls = 0;
  // At least one poll, then as long as the next one still starts before the deadline.
  for (let i = 0; i === 0 || Date.now() + ctx.cfg.pollIntervalS * 1000 <= deadline; i++) {
    flushChecks();
    sleep(ctx.cfg.pollIntervalS);
    const r = ctx.api.retrieve(id);
    polls++;
    if (cardNumber) expect('PAY-9: no full card number is returned', r.body.indexOf(cardNumber) < 0);
    const p = r.status === 200 ? normalizePayment(r.json) : null;
    if (!p) continue;
    expect('SM-1: observed statuses follow the transition table (terminal ones never change)', isAllowedTransition(last.status, p.status));
    paymentChecks(p, ctx.api.key, input);
    last = p;
    if (until(p)) return { payment: p, metAt: Date.now(), polls };
  }
  return { payment: last, metAt: null, polls };
}

const outcomeKnown = (p: CanonicalPayment): boolean => p.status !== 'pending' && p.status !== 'processing';

// ---------------------------------------------------------------- flows

export interface Recent {
  id: string;
  amount: number;
  currency: string;
  status: PaymentStatus;
}
const recentByKey: Record<number, Recent[]> = {};

/** Payments this VU created with the key, oldest first (LIST-2 compares a page with this order). */
function remember(key: KeyConfig, p: CanonicalPayment, input: Pick<PaymentInput, 'amount' | 'currency'>): void {
  const list = recentByKey[key.index] || (recentByKey[key.index] = []);
  const known = list.find((x) => x.id === p.id);
  if (known) {
    known.status = p.status;
    return;
  }
  list.push({ id: p.id, amount: input.amount, currency: input.currency, status: p.status });
  if (list.length > 50) list.shift();
}

// ---------------------------------------------------------------- sandbox driver

let driverUsable = true;

function absoluteUrl(url: string, target: string): string {
  return /^https?:\/\//.test(url) ? url : `${target}${url.charAt(0) === '/' ? '' : '/'}${url}`;
}

/** A driver answer other than the protocol's 303: stop driving for this VU, say so once. */
function driverAnswered(status: number, what: string): boolean {
  if (status === 303) return true;
  if (driverUsable) console.warn(`sandbox driver: ${what} answered ${status}, not 303; this VU stops driving sandbox pages (SANDBOX_DRIVER=off skips them).`);
  driverUsable = false;
  return false;
}

/**
 * Completes a 3DS challenge the way a customer's browser would (no API key is sent):
 * GET <redirect_url> with result=success, expecting 303 to return_url.
 */
export function complete3ds(ctx: FlowCtx, redirectUrl: string): boolean {
  if (ctx.cfg.sandboxDriver === 'off' || !driverUsable) return false;
  const u = absoluteUrl(redirectUrl, ctx.api.target);
  const url = `${u}${u.indexOf('?') >= 0 ? '&' : '?'}${THREE_DS_RESULT_PARAM}=success`;
  flushChecks();
  const sentAt = Date.now();
  const res = http.get(url, {
    redirects: 0,
    headers: { Accept: 'text/html,application/json' },
    tags: { op: 'complete_3ds' },
    timeout: ctx.cfg.requestTimeout,
  });
  recordSandbox(ctx, 'complete_3ds', 'GET', url, null, sentAt, endOf(res, sentAt, Date.now()), res);
  return driverAnswered(res.status, 'the 3DS page');
}

/** Submits the hosted page form (the card fields of src/spec/sandbox.ts), expecting 303. */
export function submitHosted(ctx: FlowCtx, redirectUrl: string, card: CardInput): boolean {
  if (ctx.cfg.sandboxDriver === 'off' || !driverUsable) return false;
  const form: Record<string, string> = {};
  for (const f of HPP_FORM_FIELDS) form[f] = String(card[f]);
  const url = absoluteUrl(redirectUrl, ctx.api.target);
  flushChecks();
  const sentAt = Date.now();
  const res = http.post(url, form, {
    redirects: 0,
    headers: { Accept: 'text/html,application/json' },
    tags: { op: 'submit_hpp' },
    timeout: ctx.cfg.requestTimeout,
  });
  const endAt = endOf(res, sentAt, Date.now());
  const formBody = Object.keys(form)
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(form[k])}`)
    .join('&');
  recordSandbox(ctx, 'submit_hpp', 'POST', url, formBody, sentAt, endAt, res);
  return driverAnswered(res.status, 'the hosted page');
}

/** A sandbox page exchange as a history record (no API key was sent; the record names the VU's key as paystorm's client does). */
function recordSandbox(ctx: FlowCtx, op: 'complete_3ds' | 'submit_hpp', method: string, url: string, body: string | null, sentAt: number, endAt: number, res: { status: number; headers: Record<string, string>; body: unknown; error: string }): void {
  recordExchange({
    op,
    key: ctx.api.key,
    method,
    url,
    body,
    idemKey: null,
    sentAt,
    // Connection time included (api.ts endOf): k6's timings.duration leaves out blocked, connecting and tls_handshaking.
    endAt,
    status: res.status,
    headers: lowerHeaders(res.headers),
    responseBody: typeof res.body === 'string' ? res.body : '',
    error: res.error || '',
  });
}

// ---------------------------------------------------------------- flows

const terminal = (p: CanonicalPayment): boolean => isTerminal(p.status);

/** A Direct API payment: create, poll until settled (completing a 3DS challenge), check the designated outcome, maybe refund. */
export function directFlow(ctx: FlowCtx, outcome: LoadOutcome): void {
  const number = ctx.cards[outcome];
  if (!number) return;
  const card = cardInput(number);
  const input = paymentInput(ctx.cfg.currency, ctx.presentation, card);
  const r = ctx.api.createDirect(directCreateBody(input, ctx.presentation));
  if (r.status === 422) {
    // A synchronous card_error: never for sandbox cards in test mode (TEST-1).
    expect('TEST-1: sandbox cards give 201 in test mode, never a synchronous 422', false);
    return;
  }
  const created = createChecks(r, ctx, input, false);
  if (!created) return;
  remember(ctx.api.key, created, input);
  const expected = CARD_EXPECTED[outcome];
  let res: PollResult;
  if (expected.status === 'requires_action') {
    const challenged = poll(ctx, created.id, created, outcomeKnown, ctx.cfg.settleMaxWaitS, input, number);
    const q = challenged.payment;
    expect('SM-3: a 3DS test card reaches requires_action', q !== null && q.status === 'requires_action');
    const url = q && q.status === 'requires_action' && q.nextAction ? q.nextAction.redirectUrl : null;
    if (!q || !url || !complete3ds(ctx, url)) return;
    res = poll(ctx, created.id, q, terminal, ctx.cfg.settleMaxWaitS, input, number);
    expect('SM-4: a completed 3DS challenge gives succeeded', res.payment !== null && res.payment.status === 'succeeded');
  } else {
    res = poll(ctx, created.id, created, terminal, ctx.cfg.settleMaxWaitS, input, number);
  }
  const settled = res.metAt !== null && res.payment !== null;
  expect('SM-6: a pending payment settles within SETTLE_MAX_WAIT', settled);
  if (!settled || !res.payment) return;
  settleTime.add((res.metAt as number) - r.sentAt);
  const p = res.payment;
  remember(ctx.api.key, p, input);
  if (expected.status !== 'requires_action') expect('SM-3: a sandbox test card reaches its designated outcome', p.status === expected.status);
  if (expected.code !== null && p.status === 'failed') {
    expect('PAY-16: a failed payment carries its designated decline code', p.failureCode === expected.code);
  }
  if (p.status === 'succeeded') {
    expect('PAY-15: a succeeded payment carries the masked card with the last four digits sent', p.card !== null && p.card.last4 === number.slice(-4));
    if (Math.random() < ctx.cfg.refundShare) refundFlow(ctx, p, input);
  }
}

function refundChecks(r: ApiResult, paymentId: string, amount: number): string | null {
  const ref = r.status === 201 ? normalizeRefund(r.json, paymentId) : null;
  expect('REF-1: a refund of a succeeded payment is accepted (201) for that payment and amount', ref !== null && ref.paymentId === paymentId && ref.amount === amount);
  return ref ? ref.id : null;
}

let refundCount = 0;
/** The refund path for the next refund: REFUND_PATH, or alternating when `both`. */
export function nextRefundPath(cfg: MixedConfig): 'payment' | 'refunds' {
  if (cfg.refundPath !== 'both') return cfg.refundPath;
  return refundCount++ % 2 === 0 ? 'payment' : 'refunds';
}

/** One of paystorm's refund plans (partial, full, partial then the rest), then the refunded totals. */
export function refundFlow(ctx: FlowCtx, p: CanonicalPayment, input: PaymentInput): void {
  const plan: RefundPlan = REFUND_PLANS[randInt(0, REFUND_PLANS.length - 1)];
  const part = plan === 'full' ? p.amount : Math.max(1, Math.floor(p.amount * (0.2 + 0.3 * Math.random())));
  const ids: string[] = [];
  let accepted = 0;
  const first = refundChecks(ctx.api.refund(p.id, part, nextRefundPath(ctx.cfg)), p.id, part);
  if (first) {
    ids.push(first);
    accepted += part;
  }
  if (plan === 'partial-then-rest' && first && p.amount - part > 0) {
    const rest = p.amount - part;
    const second = refundChecks(ctx.api.refund(p.id, rest, nextRefundPath(ctx.cfg)), p.id, rest);
    if (second) {
      ids.push(second);
      accepted += rest;
    }
  }
  if (ids.length === 0) return;
  const settledRefunds = (q: CanonicalPayment): boolean =>
    q.refunds !== null ? ids.every((rid) => q.refunds!.some((x) => x.id === rid && x.status !== 'pending')) : (q.amountRefunded ?? 0) >= accepted;
  const res = poll(ctx, p.id, p, settledRefunds, ctx.cfg.refundMaxWaitS, input, input.card ? input.card.number : undefined);
  const q = res.payment;
  if (!q) return;
  expect('SM-2: refunds leave a succeeded payment succeeded', q.status === 'succeeded');
  const refunded = q.amountRefunded ?? 0;
  expect('REF-3: refunds never add up to more than the amount', refunded <= q.amount);
  if (q.refunds !== null) {
    const sumSucceeded = q.refunds.filter((x) => x.status === 'succeeded').reduce((s, x) => s + (x.amount ?? 0), 0);
    expect('REF-2: refunded_amount is the sum of succeeded refunds only', refunded === sumSucceeded);
    const positions = ids.map((rid) => q.refunds!.findIndex((x) => x.id === rid));
    expect('REF-1: refunds appear in the payment, oldest first', positions.every((pos) => pos >= 0) && positions.every((pos, i) => i === 0 || pos > positions[i - 1]));
    expect('REF-6: refunded_at is set exactly when the refunded total reaches the amount', (q.refundedAt !== null) === (refunded === q.amount));
  }
}

/** A hosted-page payment: create, read it back, and (with the sandbox driver) pay it with the succeeding card. */
export function hostedFlow(ctx: FlowCtx): void {
  const input = paymentInput(ctx.cfg.currency, ctx.presentation);
  const c = ctx.api.createHosted(hostedCreateBody(input));
  const created = createChecks(c, ctx, input, true);
  if (!created) return;
  remember(ctx.api.key, created, input);
  const r = ctx.api.retrieve(created.id);
  const p = r.status === 200 ? normalizePayment(r.json) : null;
  expect('FT-1: a payment answered 201 can be retrieved afterwards', p !== null && p.id === created.id);
  if (!p) return;
  expect('SM-1: observed statuses follow the transition table (terminal ones never change)', isAllowedTransition(created.status, p.status));
  paymentChecks(p, ctx.api.key, input);
  const number = ctx.cards.succeeds;
  const url = p.nextAction && p.nextAction.redirectUrl ? p.nextAction.redirectUrl : p.redirectUrl;
  if (!number || !url || p.status !== 'requires_action' || !submitHosted(ctx, url, cardInput(number))) return;
  const res = poll(ctx, p.id, p, terminal, ctx.cfg.settleMaxWaitS, input, number);
  expect('TEST-3: a test card works on the hosted page with the same outcome', res.payment !== null && res.payment.status === 'succeeded');
  if (res.metAt === null || !res.payment) return;
  settleTime.add(res.metAt - c.sentAt);
  remember(ctx.api.key, res.payment, input);
  if (res.payment.status === 'succeeded') {
    expect('PAY-15: a succeeded payment carries the masked card with the last four digits sent', res.payment.card !== null && res.payment.card.last4 === number.slice(-4));
  }
}

/** One page of the list. */
export function listFlow(api: Api, limit = LIMITS.pageLimitDefault): void {
  const r = api.list({ limit });
  const l = r.status === 200 ? normalizeList(r.json) : null;
  expect('LIST-1: a list is {object: "list", data, has_more, url}', l !== null && l.object === 'list' && l.hasMore !== null && typeof l.url === 'string');
  if (!l) return;
  expect('LIST-3: a page holds at most limit items', l.ids.length <= limit);
  const created = l.payments.map((p) => p.created);
  // Newest first: created never increases down the page, and the payments this VU made
  // with the key (whose creation order it knows, even within one second) appear in reverse order.
  const mine = recentByKey[api.key.index] || [];
  const order = l.ids.map((id) => mine.findIndex((x) => x.id === id)).filter((i) => i >= 0);
  expect(
    'LIST-2: data is newest first',
    created.every((c, i) => i === 0 || c === null || created[i - 1] === null || (created[i - 1] as number) >= c) && order.every((o, i) => i === 0 || order[i - 1] > o),
  );
  expect('LIST-9: a list holds only payments of the key mode', l.payments.every((p) => p.livemode === (api.key.mode === 'live')));
}

/** Read back a payment this VU created with the key; a list when there is none yet. */
export function retrieveFlow(ctx: FlowCtx): void {
  const list = recentByKey[ctx.api.key.index];
  if (!list || list.length === 0) {
    listFlow(ctx.api);
    return;
  }
  const known = list[randInt(0, list.length - 1)];
  const r = ctx.api.retrieve(known.id);
  const p = r.status === 200 ? normalizePayment(r.json) : null;
  expect('FT-1: a payment answered 201 can be retrieved afterwards', p !== null && p.id === known.id);
  if (!p) return;
  expect('SM-1: observed statuses follow the transition table (terminal ones never change)', isAllowedTransition(known.status, p.status));
  paymentChecks(p, ctx.api.key, known);
  known.status = p.status;
}

// ---------------------------------------------------------------- setup

/**
 * Which presentation the target speaks: PRESENTATION, else the first payment seen —
 * an existing one from the list, else a hosted create (its body has one form), else a
 * Direct API create in form A, then B.
 */
export function detectTargetPresentation(api: Api, fixed: Presentation | null, cards: CardsFile, currency: string): { presentation: Presentation; via: string } {
  if (fixed) return { presentation: fixed, via: 'PRESENTATION' };
  const l = api.list({ limit: 1 });
  const list = l.status === 200 ? normalizeList(l.json) : null;
  if (list && list.payments.length > 0) return { presentation: list.payments[0].presentation, via: 'an existing payment' };
  const hosted = api.createHosted(hostedCreateBody(paymentInput(currency, 'A')));
  const hp = hosted.status === 201 ? detectPresentation(hosted.json) : null;
  if (hp) return { presentation: hp, via: 'a hosted create' };
  const number = cards.succeeds;
  if (number) {
    for (const shape of ['A', 'B'] as const) {
      const r = api.createDirect(directCreateBody(paymentInput(currency, shape, cardInput(number)), shape));
      const dp = r.status === 201 ? detectPresentation(r.json) : null;
      if (dp) return { presentation: dp, via: `a Direct API create in form ${shape}` };
    }
  }
  throw new Error(
    `could not detect the presentation from ${api.target} with key ${api.key.label} (list answered ${l.status}, hosted create ${hosted.status}); set PRESENTATION=A or B.`,
  );
}
