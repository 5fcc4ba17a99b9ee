/** Small readings of an exchange record that many invariants share. */
import { OPERATION_SCOPE, type IdempotencyScope, type Operation } from '../../spec/index.ts';
import { type ExchangeRecord } from '../../history/index.ts';

/** The sandbox driver's requests (3DS completion, hosted form) are not /v1 API calls. */
export function isDriverOp(op: Operation): boolean {
  return op === 'complete_3ds' || op === 'submit_hpp';
}

/** A request to the service's /v1 API. */
export function isApiCall(x: ExchangeRecord): boolean {
  if (isDriverOp(x.op)) return false;
  if (x.op === 'raw') return (x.sent.path ?? '/v1/').startsWith('/v1');
  return true;
}

/** What the Authorization header held (probes say; everything else used the key). */
export function authVariant(x: ExchangeRecord): NonNullable<ExchangeRecord['sent']['auth']> {
  return x.sent.auth ?? 'ok';
}

/** An API call made with a valid key that got an answer past authentication. */
export function isAuthenticatedAnswer(x: ExchangeRecord): boolean {
  return isApiCall(x) && authVariant(x) === 'ok' && x.status > 0 && x.status !== 401;
}

export function is2xx(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * Answers that say nothing about a rule of the request itself: no answer at all,
 * rate limited before the rule applied, or a server error (retryable by the spec).
 */
export function isInconclusive(x: ExchangeRecord): boolean {
  return x.status === 0 || x.status === 429 || x.status >= 500;
}

export function errorCode(x: { error: ExchangeRecord['error'] }): string | null {
  const c = x.error?.code;
  return typeof c === 'string' ? c : null;
}
export function errorType(x: { error: ExchangeRecord['error'] }): string | null {
  const c = x.error?.type;
  return typeof c === 'string' ? c : null;
}

/** A path without its query string (no array per call, unlike split: some checks ask per record). */
export function withoutQuery(path: string): string {
  const q = path.indexOf('?');
  return q < 0 ? path : path.slice(0, q);
}

/** Idempotency scope of a POST (IDEM-9), also for raw probes by their path. */
export function scopeOf(x: ExchangeRecord): IdempotencyScope | undefined {
  const s = OPERATION_SCOPE[x.op];
  if (s) return s;
  if (x.op !== 'raw' || (x.sent.method ?? 'POST').toUpperCase() !== 'POST') return undefined;
  const path = withoutQuery(x.sent.path ?? '');
  if (path === '/v1/payments') return 'payment_create';
  if (path === '/v1/payments/hpp') return 'hosted_create';
  if (path === '/v1/refunds' || /^\/v1\/payments\/[^/]+\/refund$/.test(path)) return 'refund_create';
  return undefined;
}

/** Payment creates: the Direct API and the hosted page (raw probes to those paths too). */
export function isCreate(x: ExchangeRecord): boolean {
  const s = scopeOf(x);
  return s === 'payment_create' || s === 'hosted_create';
}
export function isRefundRequest(x: ExchangeRecord): boolean {
  return scopeOf(x) === 'refund_create';
}

/** Id of the object a 2xx POST created or replayed (payment or refund). */
export function createdObjectId(x: ExchangeRecord): string | undefined {
  if (!is2xx(x.status)) return undefined;
  if (isRefundRequest(x)) return x.refund?.id;
  return x.payment?.id;
}

/** Two exchanges overlapped in time: neither ended before the other started. */
export function overlaps(a: { tStart: number; tEnd: number }, b: { tStart: number; tEnd: number }): boolean {
  return a.tStart < b.tEnd && b.tStart < a.tEnd;
}

export function currencyEq(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'string' && typeof b === 'string' && a.toUpperCase() === b.toUpperCase());
}

/**
 * An exchange to keep until the end of the run: the record without its parsed bodies (payment,
 * list page, rate headers), which are most of its size; what evidence and the judges of kept
 * requests read (op, key, status, error, sent, times, snippet) stays. Keeping whole records
 * would hold the run's bodies in memory.
 */
export function withoutBodies(x: ExchangeRecord): ExchangeRecord {
  // One object literal (one hidden class for every kept exchange); optional fields as the record has them.
  return {
    v: x.v,
    kind: 'exchange',
    seq: x.seq,
    scenario: x.scenario,
    group: x.group,
    op: x.op,
    key: x.key,
    idemKey: x.idemKey,
    bodyDigest: x.bodyDigest,
    sent: x.sent,
    tIntended: x.tIntended,
    tStart: x.tStart,
    tEnd: x.tEnd,
    wall: x.wall,
    status: x.status,
    contentType: x.contentType,
    rate: null,
    retryAfter: x.retryAfter,
    date: x.date,
    json: x.json,
    error: x.error,
    payment: null,
    refund: x.refund,
    list: null,
    bodySnippet: x.bodySnippet,
    location: x.location,
    failure: x.failure,
    attempt: x.attempt,
  };
}
