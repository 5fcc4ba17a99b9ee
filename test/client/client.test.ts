import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { detectTargetPresentation, isRetryable, makeKeySecrets, probeRateLimit, RunStoppedError } from '../../src/client/index.ts';
import { leakKind, parseRateHeaders, parseRetryAfter } from '../../src/history/index.ts';
import { parseKeyArg, type PaymentInput } from '../../src/spec/index.ts';
import { PAY_ID, RATE_HEADERS_OK, paymentB, sendJson } from '../engine/stub.ts';
import { roundTrip, stubServers } from './stub-server.ts';

const SECRET = 'svc_test_sk_clientSECRETkey9876';
const KEYS = makeKeySecrets([parseKeyArg(`shop:${SECRET}`)]);
const CARD = '4242424242424242';
const input = (extra: Partial<PaymentInput> = {}): PaymentInput => ({
  amount: 1234,
  currency: 'EUR',
  card: { number: CARD, exp_month: 12, exp_year: 2031, cvc: '123', holder_name: 'Pay Storm' },
  description: 'order 1',
  metadata: { order: '1' },
  returnUrl: 'https://example.com/back',
  ...extra,
});

const { stubbed, factory } = stubServers(KEYS);

/** Records are written a turn or two of the event loop after the caller is answered. */
const settle = () => new Promise((r) => setImmediate(() => setImmediate(r)));

describe('requests as sent', () => {
  it('sends bearer auth, JSON and a fresh Idempotency-Key per POST, and records what rules compare', async () => {
    const seen: { headers: Record<string, unknown>; body: string }[] = [];
    const s = await stubbed((req, res, body) => {
      seen.push({ headers: req.headers, body });
      sendJson(res, 201, paymentB(PAY_ID, 'pending', { amount: 1234, description: 'order 1', metadata: { order: '1' } }));
    });
    const { c, records } = factory(s.url);
    const r1 = await c.create(input(), { cardOutcome: 'succeeds', group: 'g1' });
    await c.create(input());
    expect(seen[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(seen[0].headers['content-type']).toBe('application/json');
    const k1 = seen[0].headers['idempotency-key'];
    expect(typeof k1).toBe('string');
    expect(k1).not.toBe(seen[1].headers['idempotency-key']);
    // Shape B body: card and customer.
    expect(JSON.parse(seen[0].body)).toMatchObject({ amount: 1234, currency: 'EUR', card: { number: CARD }, customer: { email: expect.any(String) } });
    const rec = roundTrip(r1.record);
    expect(rec).toMatchObject({
      op: 'create',
      key: KEYS[0].handle.label,
      idemKey: k1,
      group: 'g1',
      status: 201,
      contentType: 'application/json',
      json: true,
      sent: {
        amount: 1234,
        currency: 'EUR',
        description: 'order 1',
        metadata: { order: '1' },
        cardLast4: '4242',
        cardOutcome: 'succeeds',
        cardBrand: 'visa',
        cardMeta: { expMonth: 12, expYear: 2031, cvcLength: 3, holderName: 'Pay Storm' },
        inputShape: 'B',
        returnUrl: 'https://example.com/back',
      },
      payment: { id: PAY_ID, status: 'pending', presentation: 'B', amount: 1234 },
    });
    expect(rec.bodyDigest).toMatch(/^[0-9a-f]{16}$/);
    expect(rec.tStart).toBeLessThanOrEqual(rec.tEnd);
    expect(r1.payment?.id).toBe(PAY_ID);
    await settle();
    expect(records.length).toBe(2);
    const text = JSON.stringify(records);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(CARD);
  });

  it('writes presentation A input shape when asked, and hosted creates without card data', async () => {
    const bodies: string[] = [];
    const s = await stubbed((req, res, body) => {
      bodies.push(body);
      sendJson(res, 201, { id: 'pay_a1', status: 'REQUIRES_ACTION', amount: 1234, currency: 'EUR', livemode: false, created_at: 1, amount_refunded: 0, amount_refundable: 0, integration_type: 'HOSTED_PAYMENT_PAGE', next_action: { type: 'redirect', reason: 'hosted_payment_page', redirect_url: 'http://x/hpp/1' } });
    });
    const { c } = factory(s.url, { presentation: 'A' });
    const r = await c.create(input());
    expect(JSON.parse(bodies[0])).toMatchObject({ payment_method_data: { type: 'card', card: { number: CARD } }, billing_details: { address: { country: 'DE' } } });
    expect(r.record.sent.inputShape).toBe('A');
    const h = await c.createHosted(input({ card: undefined }));
    expect(JSON.parse(bodies[1])).not.toHaveProperty('payment_method_data');
    expect(h.record.op).toBe('create_hpp');
    expect(h.payment).toMatchObject({ presentation: 'A', status: 'requires_action', hosted: true, nextAction: { reason: 'hosted_payment_page' } });
  });

  it('records list parameters and the page: ids, has_more, url, statuses', async () => {
    let url = '';
    const s = await stubbed((req, res) => {
      url = req.url!;
      sendJson(res, 200, { object: 'list', data: [paymentB(PAY_ID, 'succeeded'), paymentB('pay_x', 'pending')], has_more: true, url: '/v1/payments' });
    });
    const { c } = factory(s.url);
    const r = await c.list({ limit: 2, status: 'succeeded', starting_after: 'pay_z', 'created[gte]': 10 });
    expect(decodeURIComponent(url)).toBe('/v1/payments?limit=2&starting_after=pay_z&status=succeeded&created[gte]=10');
    const rec = roundTrip(r.record);
    expect(rec.sent.list).toEqual({ limit: 2, startingAfter: 'pay_z', status: 'succeeded', createdGte: 10 });
    expect(rec.list).toMatchObject({ object: 'list', ids: [PAY_ID, 'pay_x'], hasMore: true, url: '/v1/payments', statuses: ['succeeded', 'pending'], livemodes: [false, false] });
    // pay_x is not pay_ + UUID: presentation B shape problem, reported per item.
    expect(rec.shapeProblems?.some((p) => p.startsWith('data[1].id'))).toBe(true);
  });

  it('records refunds on both paths and the normalized refund', async () => {
    const paths: string[] = [];
    const s = await stubbed((req, res, body) => {
      paths.push(`${req.url} ${body}`);
      sendJson(res, 201, { id: 're_1', object: 'refund', payment_id: PAY_ID, amount: 500, status: 'pending', created: 1 });
    });
    const { c } = factory(s.url);
    const a = await c.refund(PAY_ID, { amount: 500 });
    const b = await c.refund(PAY_ID, { amount: 500 }, { path: 'refunds' });
    expect(paths[0]).toBe(`/v1/payments/${PAY_ID}/refund {"amount":500}`);
    expect(paths[1]).toBe(`/v1/refunds {"payment_id":"${PAY_ID}","amount":500}`);
    expect(a.record.op).toBe('refund');
    expect(b.record.op).toBe('refund_create');
    expect(roundTrip(a.record).refund).toEqual({ id: 're_1', paymentId: PAY_ID, amount: 500, status: 'pending', created: 1 });
    expect(a.record.sent).toEqual({ paymentId: PAY_ID, amount: 500 });
  });

  it('drives the sandbox: 3DS completion and hosted form submission, recording where the 303 points', async () => {
    const seen: string[] = [];
    const s = await stubbed((req, res, body) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'} ${body}`);
      res.writeHead(303, { location: 'https://example.com/back?done=1' });
      res.end();
    });
    const { c } = factory(s.url);
    const a = await c.complete3ds(`${s.url}/sandbox/3ds/abc?x=1`, 'success');
    expect(seen[0]).toBe('GET /sandbox/3ds/abc?x=1&result=success - ');
    expect(a.record).toMatchObject({ op: 'complete_3ds', status: 303, location: 'https://example.com/back?done=1', sent: { threeDsResult: 'success' } });
    const b = await c.submitHosted(`${s.url}/hpp/xyz`, { number: CARD, exp_month: 1, exp_year: 2032, cvc: '999', holder_name: 'A B' }, { cardOutcome: 'succeeds' });
    expect(seen[1]).toContain('POST /hpp/xyz - number=4242424242424242&exp_month=1');
    expect(b.record.sent).toMatchObject({ cardLast4: '4242', cardOutcome: 'succeeds', cardBrand: 'visa' });
    expect(JSON.stringify(b.record)).not.toContain(CARD);
  });

  it('sends hand-made probes with each auth variant, never recording the key', async () => {
    const auths: (string | undefined)[] = [];
    const idem: (string | undefined)[] = [];
    const s = await stubbed((req, res) => {
      auths.push(req.headers.authorization);
      idem.push(req.headers['idempotency-key'] as string | undefined);
      sendJson(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'no', param: null, decline_code: null, doc_url: null, request_id: 'req_1' } }, {});
    });
    const { c, records } = factory(s.url);
    for (const auth of ['ok', 'missing', 'malformed', 'basic', 'basic-raw', 'bad-prefix', 'unknown-key'] as const) {
      await c.raw({ method: 'GET', path: '/v1/payments', auth });
    }
    await c.raw({ method: 'POST', path: '/v1/payments', body: '{not json', auth: 'ok' }, { sent: { badInput: { case: 'not-json', expectStatus: 400, expectCode: 'invalid_request_body', expectParam: null } } });
    await c.raw({ method: 'POST', path: '/v1/payments', body: {} }, { omitIdemKey: true });
    await settle();
    expect(auths[0]).toBe(`Bearer ${SECRET}`);
    expect(auths[1]).toBeUndefined();
    expect(auths[2]).toBe('Bearer');
    expect(auths[3]).toBe(`Basic ${Buffer.from(`${SECRET}:`).toString('base64')}`);
    expect(auths[4]).toBe(`Basic ${SECRET}`);
    expect(auths[5]).toMatch(/^Bearer xyz_test_sk_/);
    expect(auths[6]).toMatch(/^Bearer svc_test_sk_/);
    expect(auths[6]).not.toBe(`Bearer ${SECRET}`);
    expect(idem[7]).toMatch(/^ps_/);
    expect(idem[8]).toBeUndefined();
    expect(records.map((r) => r.sent.auth)).toEqual(['ok', 'missing', 'malformed', 'basic', 'basic-raw', 'bad-prefix', 'unknown-key', 'ok', 'ok']);
    expect(records[7].sent.badInput?.case).toBe('not-json');
    expect(records[8].sent.idemVariant).toBe('missing');
    expect(records[0].rate).toBeNull();
    expect(records[0].error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', request_id: 'req_1', missing: [] });
    expect(JSON.stringify(records)).not.toContain(SECRET);
  });

  it('a target that echoes a probe\'s throwaway key is caught as a leak (SEC-2)', async () => {
    const s = await stubbed((req, res) => {
      const sent = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      sendJson(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key', message: `unknown key ${sent}`, param: null, decline_code: null, doc_url: null, request_id: 'req_2' } }, {});
    });
    const { c, records } = factory(s.url);
    await c.raw({ method: 'GET', path: '/v1/payments', auth: 'unknown-key' });
    await c.raw({ method: 'GET', path: '/v1/payments', auth: 'bad-prefix' });
    await settle();
    expect(records[0].leaks).toEqual([expect.stringContaining('probe key (unknown)')]);
    expect(records[1].leaks).toEqual([expect.stringContaining('probe key (bad prefix)')]);
    // The echoed throwaway key is redacted from the evidence too.
    expect(records[0].bodySnippet).not.toMatch(/svc_test_sk_[0-9a-f]{24}/);
  });

  it('a target that echoes the basic probe\'s Authorization (the key in base64) is caught as an api_key leak and redacted', async () => {
    const s = await stubbed((req, res) => {
      sendJson(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key', message: `Invalid Authorization header: ${req.headers.authorization}`, param: null, decline_code: null, doc_url: null, request_id: 'req_3' } }, {});
    });
    const { c } = factory(s.url);
    const rec = roundTrip((await c.raw({ method: 'GET', path: '/v1/payments', auth: 'basic' })).record);
    expect(rec.leaks?.map(leakKind)).toEqual(['api_key']);
    const line = JSON.stringify(rec);
    for (const form of [Buffer.from(`${SECRET}:`).toString('base64'), Buffer.from(SECRET).toString('base64')]) expect(line).not.toContain(form.replace(/=+$/, ''));
    expect(rec.bodySnippet).toContain('Basic');
  });
});

describe('responses as recorded', () => {
  it('parses rate headers, Retry-After and the error object, naming missing error fields', async () => {
    const s = await stubbed((_req, res) =>
      sendJson(res, 429, { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down' } }, { 'X-RateLimit-Limit': '500', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1900000060', 'Retry-After': '17' }),
    );
    const { c } = factory(s.url);
    const r = await c.retrieve(PAY_ID);
    const rec = roundTrip(r.record);
    expect(rec.status).toBe(429);
    expect(rec.rate).toEqual({ limit: 500, remaining: 0, reset: 1900000060 });
    expect(rec.retryAfter).toBe(17);
    expect(rec.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', missing: ['param', 'decline_code', 'doc_url', 'request_id'] });
    expect(rec.bodySnippet).toContain('rate_limit_exceeded');
    expect(r.headers['retry-after']).toBe('17');
  });

  it('joins a repeated header\'s values instead of keeping the last: contradictory values are recorded raw, not as a clean number', async () => {
    const s = await stubbed((_req, res) => {
      // setHeader with an array sends one header line per value.
      res.setHeader('X-RateLimit-Remaining', ['5', '0']);
      res.setHeader('Retry-After', ['abc', '30']);
      sendJson(res, 429, { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down' } }, { 'X-RateLimit-Limit': '500', 'X-RateLimit-Reset': '1900000060' });
    });
    const { c } = factory(s.url);
    const r = await c.retrieve(PAY_ID);
    const rec = roundTrip(r.record);
    expect(rec.rate).toEqual({ limit: 500, remaining: null, reset: 1900000060, raw: { remaining: '5, 0' } });
    expect(rec.retryAfter).toBeNull();
    expect(rec.retryAfterRaw).toBe('abc, 30');
    expect(r.headers['x-ratelimit-remaining']).toBe('5, 0');
  });

  it('records a malformed Retry-After as null with its text, never as 0', async () => {
    const s = await stubbed((_req, res) => sendJson(res, 429, { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down' } }, { ...RATE_HEADERS_OK, 'Retry-After': '-1' }));
    const { c } = factory(s.url);
    const rec = roundTrip((await c.retrieve(PAY_ID)).record);
    expect(rec.retryAfter).toBeNull();
    expect(rec.retryAfterRaw).toBe('-1');
  });

  it('keeps unparsable rate header values raw', () => {
    expect(parseRateHeaders({ contentType: null, rateLimit: '500', rateRemaining: '-', rateReset: '12.5', retryAfter: null, location: null })).toEqual({
      limit: 500,
      remaining: null,
      reset: null,
      raw: { remaining: '-', reset: '12.5' },
    });
    expect(parseRetryAfter('3', 0)).toBe(3);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 0)).toBe(10);
    expect(parseRetryAfter('soon', 0)).toBeNull();
  });

  it('records a body echoing the key and card number with the label, a leak entry, and a redacted snippet', async () => {
    const s = await stubbed((req, res, body) => {
      const auth = String(req.headers.authorization);
      sendJson(res, 400, { error: { type: 'invalid_request_error', code: 'parameter_invalid', message: `bad key ${auth} for ${JSON.parse(body).card.number}`, param: 'card', decline_code: null, doc_url: null, request_id: 'req_2' } });
    });
    const { c } = factory(s.url);
    const r = await c.create(input());
    const rec = roundTrip(r.record);
    expect(rec.key).toBe('shop/test/…9876');
    expect(rec.leaks).toEqual([`api key shop/test/…9876 echoed`, 'full number of card …4242 echoed']);
    expect(rec.bodySnippet).toContain('shop/test/…9876');
    expect(rec.bodySnippet).toContain('card …4242');
    const text = JSON.stringify(rec);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(CARD);
  });

  it('flags non-integer amounts and returned card secrets as leaks', async () => {
    const s = await stubbed((_req, res) => sendJson(res, 200, { object: 'list', data: [paymentB(PAY_ID, 'succeeded', { amount: 12.5, card: { last4: '4242', cvc: '123' } })], has_more: false, url: '/v1/payments' }));
    const { c } = factory(s.url);
    const r = await c.list();
    expect(r.record.leaks).toEqual(['non-integer amount at data[0].amount', 'cvc returned at data[0].card.cvc']);
  });

  it('trims evidence snippets to 500 characters and keeps non-JSON bodies as evidence', async () => {
    const s = await stubbed((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>' + 'x'.repeat(2000) + '</html>');
    });
    const { c } = factory(s.url);
    const r = await c.retrieve(PAY_ID);
    expect(r.record.json).toBe(false);
    expect(r.record.contentType).toBe('text/html');
    expect(r.record.bodySnippet!.length).toBeLessThanOrEqual(500);
  });

  it('keeps 2xx JSON records compact: no snippet when nothing is wrong', async () => {
    const s = await stubbed((_req, res) => sendJson(res, 200, paymentB(PAY_ID, 'succeeded')));
    const { c } = factory(s.url);
    const r = await c.retrieve(PAY_ID);
    expect(r.record.bodySnippet).toBeUndefined();
    expect(r.record.shapeProblems).toBeUndefined();
    expect(r.record.leaks).toBeUndefined();
  });
});

describe('failures when no response came', () => {
  it('records a refused connection', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const { c } = factory(`http://127.0.0.1:${port}`);
    const r = await c.retrieve(PAY_ID);
    expect(r.status).toBe(0);
    expect(roundTrip(r.record)).toMatchObject({ status: 0, failure: 'refused', payment: null });
  });

  it('records a reset socket', async () => {
    const s = await stubbed((req) => req.socket.destroy());
    const { c } = factory(s.url);
    const r = await c.retrieve(PAY_ID);
    expect(r.record.failure).toBe('reset');
  });

  it('records a request cut off by paystorm closing its client as aborted (not a reset), and does not retry it', async () => {
    const s = await stubbed(() => {
      /* never answers */
    });
    const { f, c, records } = factory(s.url, { timeoutMs: 10_000 });
    const pending = c.retrieve(PAY_ID, { retries: 2 });
    await new Promise((r) => setTimeout(r, 100));
    await f.close();
    const r = await pending;
    expect(roundTrip(r.record)).toMatchObject({ status: 0, failure: 'aborted' });
    expect(isRetryable(r.record)).toBe(false);
    await settle();
    expect(records.map((x) => x.failure)).toEqual(['aborted']);
  });

  it('records a time-out at the per-request limit', async () => {
    const s = await stubbed(() => {
      /* never answers */
    });
    const { c } = factory(s.url, { timeoutMs: 150 });
    const r = await c.retrieve(PAY_ID);
    expect(r.record.failure).toBe('timeout');
    expect(r.record.tEnd - r.record.tStart).toBeGreaterThanOrEqual(140);
    const r2 = await c.retrieve(PAY_ID, { timeoutMs: 60 });
    expect(r2.record.failure).toBe('timeout');
  });
});

describe('retries', () => {
  it('reuses the Idempotency-Key on every retry after 503 and time-out', async () => {
    const keys: string[] = [];
    const s = await stubbed((req, res, _body, n) => {
      keys.push(String(req.headers['idempotency-key']));
      if (n === 0) sendJson(res, 503, { error: { type: 'api_error', code: 'service_unavailable', message: 'down', param: null, decline_code: null, doc_url: null, request_id: 'req_3' } });
      else if (n === 1) {
        /* stall: the client times out */
      } else sendJson(res, 201, paymentB(PAY_ID));
    });
    const { c, records } = factory(s.url, { timeScale: 0.01, timeoutMs: 200 });
    const r = await c.create(input(), { retries: 3 });
    expect(r.status).toBe(201);
    expect(keys.length).toBe(3);
    expect(new Set(keys).size).toBe(1);
    expect(records.map((x) => [x.attempt, x.status, x.failure])).toEqual([
      [0, 503, null],
      [1, 0, 'timeout'],
      [2, 201, null],
    ]);
    expect(new Set(records.map((x) => x.idemKey)).size).toBe(1);
    expect(new Set(records.map((x) => x.bodyDigest)).size).toBe(1);
  });

  it('does not retry a 429 or a 4xx', async () => {
    const s = await stubbed((_req, res) => sendJson(res, 429, { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } }, { ...RATE_HEADERS_OK, 'retry-after': '1' }));
    const { c, records } = factory(s.url, { timeScale: 0.01 });
    await c.create(input(), { retries: 3 });
    expect(records.length).toBe(1);
  });

  it('reuses a caller-given Idempotency-Key', async () => {
    const s = await stubbed((_req, res) => sendJson(res, 201, paymentB(PAY_ID)));
    const { c } = factory(s.url);
    const a = await c.create(input(), { idemKey: 'race-1' });
    const b = await c.create(input(), { idemKey: 'race-1' });
    expect([a.record.idemKey, b.record.idemKey]).toEqual(['race-1', 'race-1']);
    const long = await c.create(input(), { idemKey: 'k'.repeat(256) });
    expect(long.record.sent.idemVariant).toBe('oversized');
  });
});

describe('deferred records', () => {
  it('answers the caller first and writes the record on the next turn, in completion order, or at once when read', async () => {
    const s = await stubbed((_req, res, _b, n) => setTimeout(() => sendJson(res, 200, paymentB(PAY_ID, n === 0 ? 'pending' : 'succeeded')), n === 0 ? 30 : 0));
    const { c, records } = factory(s.url);
    const slow = c.retrieve(PAY_ID);
    const fast = await c.retrieve(PAY_ID);
    expect(records.length).toBe(0); // answered, record not yet built
    expect(fast.status).toBe(200);
    const first = await slow;
    expect(first.record.seq).toBe(0); // reading the record builds it (and everything before it)
    expect(records.map((r) => r.payment?.status)).toEqual(['succeeded', 'pending']);
    await settle();
    expect(records.length).toBe(2);
  });

  it('a result whose record could not be written rethrows that error when read', async () => {
    const s = await stubbed((_req, res) => sendJson(res, 200, paymentB(PAY_ID)));
    const { c } = factory(s.url, {
      sink: () => {
        throw new Error('history closed');
      },
    });
    const stderr = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      const r = await c.retrieve(PAY_ID);
      expect(() => r.record).toThrow(/history closed/);
    } finally {
      process.stderr.write = stderr;
    }
  });
});

describe('polling and run stop', () => {
  it('polls until the payment is terminal', async () => {
    const s = await stubbed((_req, res, _b, n) => sendJson(res, 200, paymentB(PAY_ID, n < 2 ? 'pending' : 'succeeded')));
    const { c, records } = factory(s.url, { timeScale: 0.01 });
    const p = await c.pollUntilSettled(PAY_ID);
    expect(p?.status).toBe('succeeded');
    expect(records.length).toBe(3);
  });

  it('gives up polling at maxWait with the last status seen', async () => {
    const s = await stubbed((_req, res) => sendJson(res, 200, paymentB(PAY_ID, 'pending')));
    const { c } = factory(s.url, { timeScale: 0.01 });
    const p = await c.pollUntilSettled(PAY_ID, { maxWaitMs: 100 });
    expect(p?.status).toBe('pending');
  });

  it('refuses to send once the run has stopped', async () => {
    const s = await stubbed((_req, res) => sendJson(res, 200, paymentB(PAY_ID)));
    const ac = new AbortController();
    const { c, records } = factory(s.url, { signal: ac.signal });
    await c.retrieve(PAY_ID);
    ac.abort('cap:max-requests');
    await expect(c.retrieve(PAY_ID)).rejects.toBeInstanceOf(RunStoppedError);
    await settle();
    expect(records.length).toBe(1);
  });
});

describe('target detection', () => {
  it('detects the presentation from a list page and reads the rate limit', async () => {
    const s = await stubbed((_req, res) => sendJson(res, 200, { object: 'list', data: [paymentB(PAY_ID)], has_more: false, url: '/v1/payments' }, { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119', 'x-ratelimit-reset': '1900000000' }));
    expect(await detectTargetPresentation(s.url, SECRET)).toBe('B');
    expect(await probeRateLimit(s.url, SECRET)).toEqual({ limit: 120, remaining: 119, reset: 1900000000, date: expect.any(Number), status: 200 });
  });

  it('falls back to a probe create when the list is empty', async () => {
    const s = await stubbed((req, res, body) => {
      if (req.method === 'GET') return sendJson(res, 200, { object: 'list', data: [], has_more: false, url: '/v1/payments' });
      const b = JSON.parse(body);
      if (!b.payment_method_data) return sendJson(res, 400, { error: { type: 'invalid_request_error', code: 'parameter_invalid' } });
      sendJson(res, 201, { id: 'pay_1', status: 'SUCCEEDED', amount: 100, currency: 'EUR', created_at: 1 });
    });
    expect(await detectTargetPresentation(s.url, SECRET)).toBeNull();
    const made: string[] = [];
    expect(await detectTargetPresentation(s.url, SECRET, { probeCard: input().card, onPayment: (id) => made.push(id) })).toBe('A');
    // The refused shape-B create made nothing; the shape-A one made pay_1, which the run record names.
    expect(made).toEqual(['pay_1']);
  });
});
