/**
 * Request building: what each API call sends (method, path, headers, encoded body) and what its
 * history record says was sent. Secrets are not handled here: the caller passes the headers.
 */
import { createHash } from 'node:crypto';
import { API_PATHS, HPP_FORM_FIELDS, LIST_PARAMS, REFUND_PATHS, THREE_DS_RESULT_PARAM, cardBrand, type CardOutcome, type ListParams, type Operation, type PaymentInput, type RawRequest, type ThreeDsResult, UNKNOWN_ID_PROBE } from '../spec/index.ts';
import { type ExchangeRecord, type Sent } from '../history/index.ts';
import { WIRE_HEADERS } from './wire.ts';

/** The sandbox driver's headers (the customer's browser): fixed, so built once. */
const BROWSER_GET_HEADERS: string[] = ['accept', 'text/html,application/json', ...WIRE_HEADERS];
const BROWSER_FORM_HEADERS: string[] = ['accept', 'text/html,application/json', 'content-type', 'application/x-www-form-urlencoded', ...WIRE_HEADERS];

/** One request as the client sends it (every attempt of it alike). */
export interface SendSpec {
  op: Operation;
  method: string;
  origin: string;
  path: string;
  /** Headers besides Idempotency-Key. */
  headers: string[];
  body: string | null;
  sent: Sent;
  /** Whether this request carries an Idempotency-Key (API POSTs). */
  idempotent: boolean;
}

/** Where requests go: the base URL, its origin and its path prefix (a target mounted under a path). */
export interface RequestTarget {
  readonly baseUrl: string;
  readonly origin: string;
  readonly basePath: string;
}

/** Card details other than the number (TEST-2); the CVC only as its length. */
function cardMetaOf(card: NonNullable<PaymentInput['card']>): NonNullable<Sent['cardMeta']> {
  return { expMonth: card.exp_month, expYear: card.exp_year, cvcLength: String(card.cvc).length, holderName: card.holder_name };
}

/** A short digest of a request body: equal bodies, equal digests (idempotent replays compare them). */
export function digest(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

function stripUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** A payment create (direct or hosted): `bodyObj` is already in the shape the target takes. */
export function createRequest(
  t: RequestTarget,
  op: Operation,
  path: string,
  bodyObj: Record<string, unknown>,
  input: PaymentInput,
  shape: 'A' | 'B',
  cardOutcome: CardOutcome | undefined,
  headers: string[],
): SendSpec {
  const sent: Sent = stripUndefined({
    amount: input.amount,
    currency: input.currency,
    description: input.description,
    metadata: input.metadata,
    merchantReference: input.merchantReference,
    returnUrl: input.returnUrl,
    cardLast4: input.card ? input.card.number.slice(-4) : undefined,
    cardBrand: input.card ? cardBrand(input.card.number) : undefined,
    cardOutcome,
    cardMeta: input.card ? cardMetaOf(input.card) : undefined,
    inputShape: shape,
  });
  return { op, method: 'POST', origin: t.origin, path: t.basePath + path, headers, body: JSON.stringify(bodyObj), sent, idempotent: true };
}

export function retrieveRequest(t: RequestTarget, paymentId: string, headers: string[], unknownId = false): SendSpec {
  const sent: Sent = unknownId ? { paymentId, badInput: { ...UNKNOWN_ID_PROBE } } : { paymentId };
  return { op: 'retrieve', method: 'GET', origin: t.origin, path: t.basePath + API_PATHS.payment(paymentId), headers, body: null, sent, idempotent: false };
}

export function listRequest(t: RequestTarget, params: ListParams, headers: string[]): SendSpec {
  const q = new URLSearchParams();
  for (const k of Object.keys(LIST_PARAMS) as (keyof typeof LIST_PARAMS)[]) {
    const v = params[k];
    if (v !== undefined) q.set(k, String(v));
  }
  const qs = q.toString();
  const sent: Sent = {
    list: stripUndefined({
      limit: params.limit,
      startingAfter: params.starting_after,
      status: params.status,
      createdGte: params['created[gte]'],
      createdLt: params['created[lt]'],
    }),
  };
  return { op: 'list', method: 'GET', origin: t.origin, path: t.basePath + API_PATHS.payments + (qs ? `?${qs}` : ''), headers, body: null, sent, idempotent: false };
}

/** A refund on either path the spec allows: payment-scoped, or top-level `/refunds` with `payment_id`. */
export function refundRequest(t: RequestTarget, paymentId: string, body: { amount?: number }, topLevel: boolean, headers: string[]): SendSpec {
  const payload = topLevel ? stripUndefined({ payment_id: paymentId, amount: body.amount }) : stripUndefined({ amount: body.amount });
  return {
    op: topLevel ? 'refund_create' : 'refund',
    method: 'POST',
    origin: t.origin,
    path: t.basePath + (topLevel ? REFUND_PATHS.topLevel : REFUND_PATHS.paymentScoped(paymentId)),
    headers,
    body: JSON.stringify(payload),
    sent: stripUndefined({ paymentId, amount: body.amount }),
    idempotent: true,
  };
}

/** The customer's browser following the 3DS link: no API key is sent. */
export function complete3dsRequest(t: RequestTarget, redirectUrl: string, result: ThreeDsResult, paymentId: string | undefined): SendSpec {
  const url = new URL(redirectUrl, t.baseUrl);
  url.searchParams.set(THREE_DS_RESULT_PARAM, result);
  return {
    op: 'complete_3ds',
    method: 'GET',
    origin: url.origin,
    path: url.pathname + url.search,
    headers: BROWSER_GET_HEADERS,
    body: null,
    sent: stripUndefined({ method: 'GET', path: url.pathname, threeDsResult: result, paymentId }),
    idempotent: false,
  };
}

/** The customer submitting the hosted payment page's card form (no API key). */
export function submitHostedRequest(
  t: RequestTarget,
  redirectUrl: string,
  card: NonNullable<PaymentInput['card']>,
  cardOutcome: CardOutcome | undefined,
  paymentId: string | undefined,
): SendSpec {
  const url = new URL(redirectUrl, t.baseUrl);
  const form = new URLSearchParams();
  for (const k of HPP_FORM_FIELDS) form.set(k, String(card[k]));
  return {
    op: 'submit_hpp',
    method: 'POST',
    origin: url.origin,
    path: url.pathname + url.search,
    headers: BROWSER_FORM_HEADERS,
    body: form.toString(),
    sent: stripUndefined({ method: 'POST', path: url.pathname, cardLast4: card.number.slice(-4), cardBrand: cardBrand(card.number), cardOutcome, cardMeta: cardMetaOf(card), paymentId }),
    idempotent: false,
  };
}

/**
 * A probe's request as written, with defaults for what it leaves out: the Authorization of its
 * auth variant (`authorization` is called only when the probe gives no such header), JSON
 * content type and accept, paystorm's User-Agent and `accept-encoding: identity`.
 */
export function rawRequest(
  t: RequestTarget,
  req: RawRequest,
  authorization: (auth: NonNullable<RawRequest['auth']>) => string | null,
  opts?: { sent?: Partial<ExchangeRecord['sent']>; op?: ExchangeRecord['op'] },
): SendSpec {
  const auth = req.auth ?? 'ok';
  const headers: string[] = [];
  const given = new Set<string>();
  for (const [k, v] of Object.entries(req.headers ?? {})) {
    headers.push(k, v);
    given.add(k.toLowerCase());
  }
  if (!given.has('authorization')) {
    const value = authorization(auth);
    if (value !== null) headers.push('authorization', value);
  }
  let body: string | null = null;
  if (req.body !== undefined) {
    body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    if (!given.has('content-type')) headers.push('content-type', 'application/json');
  }
  if (!given.has('accept')) headers.push('accept', 'application/json');
  for (let i = 0; i < WIRE_HEADERS.length; i += 2) if (!given.has(WIRE_HEADERS[i])) headers.push(WIRE_HEADERS[i], WIRE_HEADERS[i + 1]);
  const url = new URL(req.path.startsWith('/') ? t.baseUrl.replace(/\/+$/, '') + req.path : req.path);
  return {
    op: opts?.op ?? 'raw',
    method: req.method,
    origin: url.origin,
    path: url.pathname + url.search,
    headers,
    body,
    sent: { method: req.method, path: url.pathname + url.search, auth, ...(opts?.sent ?? {}) },
    // An explicit Idempotency-Key header is the probe's own; otherwise POSTs get one unless omitted.
    idempotent: req.method === 'POST' && !given.has('idempotency-key'),
  };
}
