/**
 * A tiny Card Payment Service for the k6 script tests: just enough of the contract for
 * the scripts' request sequences (auth, fixed-window rate limit with headers,
 * idempotency, creates in presentation A or B, settle-on-next-GET, refunds, list).
 * `bugs` switches on deliberate contract violations, to show the scripts' checks
 * catch them. Not the reference service (src/target), which the scripts are also run
 * against when it exists.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { DEFAULT_TEST_CARDS } from '../../src/spec/cards.ts';

export interface StubOptions {
  presentation: 'A' | 'B';
  limit?: number;
  windowMs?: number;
  bugs?: {
    /** 429 without Retry-After. */
    noRetryAfter?: boolean;
    /** Admit this many requests beyond the limit in each window. */
    overAdmit?: number;
    /** refunded_amount also counts pending refunds, and refunds never settle. */
    refundedCountsPending?: boolean;
  };
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
  status: number;
}

interface Refund {
  id: string;
  amount: number;
  status: 'pending' | 'succeeded' | 'failed';
  created: number;
}

interface Payment {
  id: string;
  apiKey: string;
  seq: number;
  amount: number;
  currency: string;
  status: 'pending' | 'processing' | 'requires_action' | 'succeeded' | 'failed';
  outcome: 'succeeds' | 'do_not_honor' | 'insufficient_funds' | 'three_ds_challenge' | 'hosted';
  created: number;
  hosted: boolean;
  cardLast4: string | null;
  expMonth: number | null;
  expYear: number | null;
  description: string | null;
  metadata: Record<string, string> | null;
  merchantReference: number | null;
  failureCode: string | null;
  refunds: Refund[];
  succeededAt: number | null;
  failedAt: number | null;
  refundedAt: number | null;
}

type Json = Record<string, unknown>;
const now = () => Math.floor(Date.now() / 1000);

export class StubService {
  readonly requests: RecordedRequest[] = [];
  readonly payments = new Map<string, Payment>();
  private server: Server | null = null;
  private seq = 0;
  private windows = new Map<string, { start: number; count: number }>();
  private idem = new Map<string, { body: string; status: number; response: Json }>();
  url = '';

  constructor(readonly opts: StubOptions) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    if (this.server) await new Promise<void>((r) => this.server!.close(() => r()));
  }

  private send(res: ServerResponse, rec: RecordedRequest, status: number, body: Json, headers: Record<string, string> = {}): void {
    rec.status = status;
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private error(type: string, code: string, message: string, param: string | null = null): Json {
    return { error: { type, code, message, param, decline_code: null, doc_url: null, request_id: `req_${randomBytes(8).toString('hex')}` } };
  }

  private handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const u = new URL(req.url ?? '/', 'http://stub');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
    const rec: RecordedRequest = { method: req.method ?? 'GET', path: u.pathname, query: Object.fromEntries(u.searchParams), headers, body: raw, status: 0 };
    this.requests.push(rec);

    const auth = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
    if (!auth || !/^[A-Za-z0-9]+_(test|live)_sk_.+$/.test(auth[1])) {
      return this.send(res, rec, 401, this.error('authentication_error', 'invalid_api_key', 'Missing or malformed Authorization header, or a non-Bearer scheme.'));
    }
    const apiKey = auth[1];
    const live = apiKey.includes('_live_sk_');

    // Fixed window per key, starting at the first request.
    const limit = this.opts.limit ?? 500;
    const windowMs = this.opts.windowMs ?? 60_000;
    const t = Date.now();
    let w = this.windows.get(apiKey);
    if (!w || t >= w.start + windowMs) {
      w = { start: t, count: 0 };
      this.windows.set(apiKey, w);
    }
    const reset = String(Math.ceil((w.start + windowMs) / 1000));
    if (w.count >= limit + (this.opts.bugs?.overAdmit ?? 0)) {
      const h: Record<string, string> = { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset };
      if (!this.opts.bugs?.noRetryAfter) h['Retry-After'] = String(Math.max(1, Math.ceil((w.start + windowMs - t) / 1000)));
      return this.send(res, rec, 429, this.error('rate_limit_error', 'rate_limit_exceeded', 'Too many requests.'), h);
    }
    w.count++;
    const rl = { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(Math.max(0, limit - w.count)), 'X-RateLimit-Reset': reset };
    const reply = (status: number, body: Json) => this.send(res, rec, status, body, rl);

    const m = rec.method;
    const p = u.pathname;
    if (m === 'GET' && p === '/v1/payments') return this.list(apiKey, live, u, reply);
    const one = /^\/v1\/payments\/([^/]+)$/.exec(p);
    if (m === 'GET' && one) {
      const pay = this.payments.get(decodeURIComponent(one[1]));
      if (!pay || pay.apiKey !== apiKey) return reply(404, this.error('invalid_request_error', 'resource_missing', 'No such payment.', 'id'));
      this.advance(pay);
      return reply(200, this.wire(pay, live));
    }
    if (m !== 'POST') return reply(404, this.error('invalid_request_error', 'resource_missing', 'No such route.'));

    const idemKey = headers['idempotency-key'];
    if (idemKey === undefined) return reply(400, this.error('invalid_request_error', 'parameter_missing', 'Idempotency-Key header is required.', 'Idempotency-Key'));
    if (idemKey.length > 255) return reply(400, this.error('invalid_request_error', 'parameter_invalid', 'Idempotency-Key is longer than 255 characters.', 'Idempotency-Key'));
    let body: Json;
    try {
      body = JSON.parse(raw === '' ? '{}' : raw) as Json;
    } catch {
      return reply(400, this.error('invalid_request_error', 'invalid_request_body', 'The body is not JSON.'));
    }
    const refundMatch = /^\/v1\/payments\/([^/]+)\/refund$/.exec(p);
    const scope = p === '/v1/payments' ? 'create' : p === '/v1/payments/hpp' ? 'hosted' : refundMatch || p === '/v1/refunds' ? 'refund' : null;
    if (!scope) return reply(404, this.error('invalid_request_error', 'resource_missing', 'No such route.'));
    const cacheKey = `${apiKey}|${scope}|${idemKey}`;
    const cached = this.idem.get(cacheKey);
    if (cached) {
      if (cached.body !== raw) return reply(409, this.error('idempotency_error', 'idempotency_key_reused', 'Same key, different body.'));
      return reply(cached.status, cached.response);
    }
    let out: { status: number; body: Json };
    if (scope === 'create') out = this.create(apiKey, live, body, false);
    else if (scope === 'hosted') out = this.create(apiKey, live, body, true);
    else {
      const paymentId = refundMatch ? decodeURIComponent(refundMatch[1]) : String(body.payment_id ?? '');
      out = this.refund(apiKey, paymentId, body);
    }
    if (out.status >= 200 && out.status < 300) this.idem.set(cacheKey, { body: raw, status: out.status, response: out.body });
    return reply(out.status, out.body);
  }

  private list(apiKey: string, live: boolean, u: URL, reply: (s: number, b: Json) => void): void {
    const limit = u.searchParams.has('limit') ? Number(u.searchParams.get('limit')) : 10;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return reply(400, this.error('invalid_request_error', 'parameter_invalid', 'limit must be 1 to 100.', 'limit'));
    const mine = [...this.payments.values()].filter((x) => x.apiKey === apiKey).sort((a, b) => b.seq - a.seq);
    reply(200, { object: 'list', data: mine.slice(0, limit).map((x) => this.wire(x, live)), has_more: mine.length > limit, url: '/v1/payments' });
  }

  private create(apiKey: string, live: boolean, body: Json, hosted: boolean): { status: number; body: Json } {
    const A = this.opts.presentation === 'A';
    const bad = (param: string) => ({ status: 400, body: this.error('invalid_request_error', 'parameter_invalid', `Invalid ${param}.`, param) });
    if (!Number.isInteger(body.amount) || (body.amount as number) < 1) return bad('amount');
    if (typeof body.currency !== 'string' || !/^[A-Za-z]{3}$/.test(body.currency)) return bad('currency');
    let number: string | null = null;
    let card: Json | null = null;
    if (!hosted) {
      card = (A ? ((body.payment_method_data as Json | undefined)?.card as Json | undefined) : (body.card as Json | undefined)) ?? null;
      if (!card || typeof card.number !== 'string') return bad(A ? 'payment_method_data.card.number' : 'card.number');
      if (!A && typeof body.customer !== 'object') return bad('customer');
      number = card.number;
    }
    if ((A || hosted) && typeof body.billing_details !== 'object') return bad('billing_details');
    if (A && typeof body.return_url !== 'string') return bad('return_url');
    const outcome: Payment['outcome'] = hosted
      ? 'hosted'
      : number === DEFAULT_TEST_CARDS.succeeds
        ? 'succeeds'
        : number === DEFAULT_TEST_CARDS.do_not_honor
          ? 'do_not_honor'
          : number === DEFAULT_TEST_CARDS.insufficient_funds
            ? 'insufficient_funds'
            : number === DEFAULT_TEST_CARDS.three_ds_challenge
              ? 'three_ds_challenge'
              : 'do_not_honor';
    const pay: Payment = {
      id: A ? `pay_${randomBytes(12).toString('hex')}` : `pay_${randomUUID()}`,
      apiKey,
      seq: ++this.seq,
      amount: body.amount as number,
      currency: (body.currency as string).toUpperCase(),
      status: hosted ? 'requires_action' : A ? (outcome === 'three_ds_challenge' ? 'requires_action' : 'processing') : 'pending',
      outcome,
      created: now(),
      hosted,
      cardLast4: number ? number.slice(-4) : null,
      expMonth: card ? Number(card.exp_month) : null,
      expYear: card ? Number(card.exp_year) : null,
      description: typeof body.description === 'string' ? body.description : null,
      metadata: (body.metadata as Record<string, string> | undefined) ?? null,
      merchantReference: typeof body.merchant_reference === 'number' ? body.merchant_reference : null,
      failureCode: null,
      refunds: [],
      succeededAt: null,
      failedAt: null,
      refundedAt: null,
    };
    this.payments.set(pay.id, pay);
    return { status: 201, body: this.wire(pay, live) };
  }

  /** Pending payments settle, and pending refunds succeed, when the payment is next read. */
  private advance(pay: Payment): void {
    if (pay.status === 'pending' || pay.status === 'processing') {
      if (pay.outcome === 'succeeds') {
        pay.status = 'succeeded';
        pay.succeededAt = now();
      } else if (pay.outcome === 'three_ds_challenge') pay.status = 'requires_action';
      else if (pay.outcome !== 'hosted') {
        pay.status = 'failed';
        pay.failedAt = now();
        pay.failureCode = pay.outcome;
      }
    }
    if (!this.opts.bugs?.refundedCountsPending) for (const r of pay.refunds) if (r.status === 'pending') r.status = 'succeeded';
    if (this.refunded(pay) === pay.amount && pay.refundedAt === null) pay.refundedAt = now();
  }

  private refunded(pay: Payment): number {
    return pay.refunds.filter((r) => r.status === 'succeeded' || (this.opts.bugs?.refundedCountsPending && r.status === 'pending')).reduce((s, r) => s + r.amount, 0);
  }

  private refund(apiKey: string, paymentId: string, body: Json): { status: number; body: Json } {
    const pay = this.payments.get(paymentId);
    if (!pay || pay.apiKey !== apiKey) return { status: 404, body: this.error('invalid_request_error', 'resource_missing', 'No such payment.', 'payment_id') };
    const notAllowed = (sub: string, why: string) => ({ status: 422, body: this.error('invalid_request_error', 'action_not_allowed', `Refund validation failed [${sub}]: ${why}`) });
    if (pay.status !== 'succeeded') return notAllowed('payment_not_succeeded', 'the payment is not succeeded');
    const reserved = pay.refunds.filter((r) => r.status !== 'failed').reduce((s, r) => s + r.amount, 0);
    const amount = body.amount === undefined ? pay.amount - reserved : body.amount;
    if (!Number.isInteger(amount) || (amount as number) < 1) return { status: 400, body: this.error('invalid_request_error', 'parameter_invalid', 'Invalid amount.', 'amount') };
    if ((amount as number) > pay.amount - reserved) return notAllowed('amount_too_large', 'the amount exceeds the refundable amount');
    const r: Refund = { id: `re_${randomBytes(12).toString('hex')}`, amount: amount as number, status: 'pending', created: now() };
    pay.refunds.push(r);
    const A = this.opts.presentation === 'A';
    return { status: 201, body: { id: r.id, object: 'refund', payment_id: pay.id, amount: r.amount, status: r.status, ...(A ? { created_at: r.created } : { created: r.created }) } };
  }

  private wire(pay: Payment, live: boolean): Json {
    const refunded = this.refunded(pay);
    const nextAction =
      pay.status === 'requires_action'
        ? { type: 'redirect', ...(this.opts.presentation === 'A' ? { reason: pay.hosted ? 'hosted_payment_page' : 'three_d_secure' } : {}), redirect_url: `${this.url}/sandbox/${pay.id}` }
        : null;
    const card = pay.cardLast4 && pay.status === 'succeeded' ? { brand: 'visa', last4: pay.cardLast4, exp_month: pay.expMonth, exp_year: pay.expYear } : null;
    if (this.opts.presentation === 'A') {
      return {
        id: pay.id,
        amount: pay.amount,
        currency: pay.currency,
        status: pay.status.toUpperCase(),
        integration_type: pay.hosted ? 'HOSTED_PAYMENT_PAGE' : 'DIRECT_API',
        next_action: nextAction,
        livemode: live,
        created_at: pay.created,
        amount_refunded: refunded,
        amount_refundable: pay.status === 'succeeded' ? pay.amount - pay.refunds.filter((r) => r.status !== 'failed').reduce((s, r) => s + r.amount, 0) : 0,
        ...(card ? { card } : {}),
        ...(pay.failureCode ? { failure_code: pay.failureCode } : {}),
        ...(pay.merchantReference !== null ? { merchant_reference: pay.merchantReference } : {}),
        ...(pay.description !== null ? { description: pay.description } : {}),
      };
    }
    return {
      id: pay.id,
      object: 'payment',
      amount: pay.amount,
      currency: pay.currency.toLowerCase(),
      status: pay.status === 'processing' ? 'pending' : pay.status,
      created: pay.created,
      livemode: live,
      description: pay.description,
      card: pay.hosted ? null : card ? { ...card, country: 'DE' } : pay.cardLast4 ? { brand: 'visa', last4: pay.cardLast4, exp_month: pay.expMonth, exp_year: pay.expYear, country: null } : null,
      customer: { email: 'storm@example.com', name: 'Pay Storm' },
      metadata: pay.metadata ?? {},
      decline_code: pay.failureCode,
      decline_message: pay.failureCode ? 'Declined.' : null,
      redirect_url: pay.hosted ? `${this.url}/hpp/${pay.id}` : null,
      refunded_at: pay.refundedAt,
      succeeded_at: pay.succeededAt,
      failed_at: pay.failedAt,
      next_action: nextAction,
      refunded_amount: refunded,
      refunds: pay.refunds.map((r) => ({ id: r.id, object: 'refund', payment_id: pay.id, amount: r.amount, status: r.status, created: r.created })),
    };
  }
}
