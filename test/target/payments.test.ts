import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_STATUSES, PAYMENT_ID_B_PATTERN, normalizePayment, validatePaymentShape, type CanonicalPayment } from '../../src/spec/index.ts';
import type { RunningService } from '../../src/target/index.ts';
import { CARDS, KEYS, RETURN_URL, card, client, closeAll, createBody, http, start, type Client } from './helpers.ts';

afterAll(closeAll);

/** Every payment body the service sends must conform to its presentation and normalize. */
function conforms(body: unknown, presentation: 'A' | 'B'): CanonicalPayment {
  expect(validatePaymentShape(body)).toEqual([]);
  const p = normalizePayment(body)!;
  expect(p).not.toBeNull();
  expect(p.presentation).toBe(presentation);
  return p;
}

async function submitHosted(s: RunningService, url: string, number: string, extra: Record<string, string> = {}) {
  const form = new URLSearchParams({ number, exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 2), cvc: number.startsWith('3') ? '1234' : '123', holder_name: 'Pay Storm', ...extra });
  return http(s.url, 'POST', url, { key: null, idem: null, body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}

describe.each(['A', 'B'] as const)('payments, presentation %s', (presentation) => {
  let s: RunningService;
  let c: Client;
  let expiring: RunningService;
  beforeAll(async () => {
    s = await start({ presentation, rateLimit: 100_000 });
    c = client(s, KEYS.acmeTest);
    // Challenge and hosted-page expiry at 0.001: 300 ms and 900 ms.
    expiring = await start({ presentation, timeScale: 0.001, rateLimit: 100_000 });
  });

  it('PAY-1/6/8/15: create answers 201 with an allowed status; the payment keeps what was sent and succeeds with a masked card', async () => {
    for (const shape of ['A', 'B'] as const) {
      const r = await c.create({ amount: 1234, currency: 'usd', description: 'd-1', metadata: { a: '1', b: 'x' }, merchantReference: 1000000001 }, { shape });
      expect(r.status).toBe(201);
      expect(r.headers['content-type']).toBe('application/json');
      const p = conforms(r.json, presentation);
      expect(p.id.startsWith('pay_')).toBe(true);
      if (presentation === 'B') {
        expect(p.id).toMatch(PAYMENT_ID_B_PATTERN);
        expect(r.json.object).toBe('payment');
        expect(p.status).toBe('pending');
        expect(r.json.next_action).toBeNull();
        expect(r.json.redirect_url).toBeNull();
      }
      expect(CREATE_STATUSES[presentation].has(p.status)).toBe(true);
      const done = await c.waitFor(p.id, (x) => x.status === 'succeeded');
      const got = await c.get(`/v1/payments/${p.id}`);
      conforms(got.json, presentation);
      for (const x of [p, done]) {
        expect(x.amount).toBe(1234);
        expect(x.currency).toBe('USD');
        expect(x.description).toBe('d-1');
        expect(x.metadata).toEqual({ a: '1', b: 'x' });
        expect(x.merchantReference).toBe(1000000001);
        expect(x.livemode).toBe(false);
      }
      expect(got.json.currency).toBe(presentation === 'A' ? 'USD' : 'usd');
      expect(done.card).toMatchObject({ brand: 'visa', last4: '4242', exp_month: 12 });
      expect(done.nextAction).toBeNull();
      if (presentation === 'A') {
        expect(done.amountRefundable).toBe(1234);
        expect(got.json.integration_type).toBe('DIRECT_API');
      } else {
        expect(done.succeededAt).toEqual(expect.any(Number));
        expect(done.failedAt).toBeNull();
        expect(got.json.provider_reference).toMatch(/^psp_/);
      }
    }
  });

  it('PAY-9: no response carries the full card number or the CVC', async () => {
    const r = await c.create({ card: card(CARDS.succeeds, '987') });
    await c.waitFor(r.json.id, (x) => x.status === 'succeeded');
    for (const text of [r.text, (await c.get(`/v1/payments/${r.json.id}`)).text, (await c.get('/v1/payments?limit=100')).text]) {
      expect(text).not.toContain(CARDS.succeeds);
      expect(text).not.toContain('"987"');
    }
  });

  it('TEST-1 / PAY-16 / SM-3: decline cards give 201 and then failed with their code', async () => {
    for (const [number, code] of [
      [CARDS.do_not_honor, 'do_not_honor'],
      [CARDS.insufficient_funds, 'insufficient_funds'],
    ] as const) {
      const r = await c.create({ card: card(number) });
      expect(r.status).toBe(201);
      const first = conforms(r.json, presentation);
      expect(presentation === 'A' ? ['pending', 'failed'] : ['pending']).toContain(first.status);
      const p = await c.waitFor(r.json.id, (x) => x.status === 'failed');
      expect(p.failureCode).toBe(code);
      if (presentation === 'B') {
        expect(p.failedAt).toEqual(expect.any(Number));
        expect(p.succeededAt).toBeNull();
      }
      conforms((await c.get(`/v1/payments/${r.json.id}`)).json, presentation);
    }
  });

  it('the upstream-error card: 201 pending, retried, and failed with generic_decline', async () => {
    const r = await c.create({ card: card(CARDS.upstream_error) });
    expect(r.status).toBe(201);
    expect(normalizePayment(r.json)!.status).toBe('pending');
    const p = await c.waitFor(r.json.id, (x) => x.status === 'failed');
    expect(p.failureCode).toBe('generic_decline');
  });

  it('ERR-3 / PAY-7: synchronous card rejections are 422 card_error card_declined with a decline_code', async () => {
    const bad = await c.create({ card: card('4242424242424241') });
    expect(bad.status).toBe(422);
    expect(bad.json.error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'invalid_number' });
    const expired = await c.create({ card: { ...card(), exp_year: 2020 } });
    expect(expired.status).toBe(422);
    expect(expired.json.error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'expired_card' });
  });

  it('TEST-2: any future expiry, a 4-digit CVC for American Express and any holder name are accepted', async () => {
    const amex = await c.create({ card: { number: '378282246310005', exp_month: 1, exp_year: new Date().getUTCFullYear() + 9, cvc: '1234', holder_name: 'Ä Ö' } });
    expect(amex.status).toBe(201);
    expect((await c.waitFor(amex.json.id, (x) => x.status === 'succeeded')).card!.brand).toBe('amex');
    expect((await c.create({ card: { number: '378282246310005', exp_month: 1, exp_year: 2099, cvc: '123', holder_name: 'x' } })).status).toBe(400);
  });

  it('PAY-17: an unknown id gives 404 resource_missing', async () => {
    const r = await c.get('/v1/payments/pay_00000000-0000-4000-8000-000000000000');
    expect(r.status).toBe(404);
    expect(r.json.error).toMatchObject({ code: 'resource_missing', type: 'invalid_request_error' });
  });

  it('SM-4 / PAY-11: 3DS challenge: requires_action with a redirect, success -> succeeded, fail -> failed three_d_secure_failed', async () => {
    for (const result of ['success', 'fail'] as const) {
      const r = await c.create({ card: card(CARDS.three_ds_challenge) });
      expect(r.status).toBe(201);
      const ra = await c.waitFor(r.json.id, (x) => x.status === 'requires_action');
      expect(ra.nextAction).toMatchObject({ type: 'redirect', reason: 'three_d_secure' });
      conforms((await c.get(`/v1/payments/${r.json.id}`)).json, presentation);
      const page = await http(s.url, 'GET', ra.nextAction!.redirectUrl!, { key: null });
      expect(page.status).toBe(200);
      expect(page.text).toContain('result=success');
      const done = await http(s.url, 'GET', `${ra.nextAction!.redirectUrl}?result=${result}`, { key: null });
      expect(done.status).toBe(303);
      expect(done.headers.location).toBe(RETURN_URL);
      const end = await c.waitFor(r.json.id, (x) => x.status !== 'requires_action');
      expect(end.nextAction).toBeNull();
      if (result === 'success') expect(end.status).toBe('succeeded');
      else expect([end.status, end.failureCode]).toEqual(['failed', 'three_d_secure_failed']);
      // The challenge is single-use.
      expect((await http(s.url, 'GET', `${ra.nextAction!.redirectUrl}?result=success`, { key: null })).status).toBe(410);
    }
  });

  it('SM-4: an abandoned challenge expires', async () => {
    const e = client(expiring, KEYS.acmeTest);
    const r = await e.create({ card: card(CARDS.three_ds_challenge) });
    await e.waitFor(r.json.id, (x) => x.status === 'requires_action');
    const p = await e.waitFor(r.json.id, (x) => x.status === 'expired', 5000);
    expect(p.nextAction).toBeNull();
    conforms((await e.get(`/v1/payments/${r.json.id}`)).json, presentation);
  });

  it('PAY-12/13 / TEST-3: hosted page: requires_action with the page, submit a card -> 303 and succeeded; single use', async () => {
    const r = await c.hosted({ amount: 777 });
    expect(r.status).toBe(201);
    const p = conforms(r.json, presentation);
    expect(p.status).toBe('requires_action');
    expect(p.nextAction).toMatchObject({ type: 'redirect', reason: 'hosted_payment_page' });
    if (presentation === 'A') expect(r.json.integration_type).toBe('HOSTED_PAYMENT_PAGE');
    else {
      expect(r.json.card).toBeNull();
      expect(r.json.redirect_url).toBe(p.nextAction!.redirectUrl);
    }
    const form = await http(s.url, 'GET', p.nextAction!.redirectUrl!, { key: null });
    expect(form.status).toBe(200);
    expect(form.text).toContain('<form');
    const sub = await submitHosted(s, p.nextAction!.redirectUrl!, CARDS.succeeds);
    expect(sub.status).toBe(303);
    expect(sub.headers.location).toBe(RETURN_URL);
    const done = await c.waitFor(p.id, (x) => x.status === 'succeeded');
    expect(done.card).toMatchObject({ last4: '4242' });
    if (presentation === 'B') expect(done.redirectUrl).toBe(p.nextAction!.redirectUrl);
    expect((await submitHosted(s, p.nextAction!.redirectUrl!, CARDS.succeeds)).status).toBe(410);
    // Decline cards work on the hosted page with the same outcomes.
    const d = await c.hosted();
    await submitHosted(s, d.json.next_action.redirect_url, CARDS.insufficient_funds);
    expect((await c.waitFor(d.json.id, (x) => x.status === 'failed')).failureCode).toBe('insufficient_funds');
  });

  it('SM-5: a hosted page submitted with the 3DS card stays requires_action with reason three_d_secure and redirects to the challenge', async () => {
    const r = await c.hosted();
    const hostedUrl = r.json.next_action.redirect_url;
    const sub = await submitHosted(s, hostedUrl, CARDS.three_ds_challenge);
    expect(sub.status).toBe(303);
    const p = await c.waitFor(r.json.id, (x) => x.nextAction?.reason === 'three_d_secure');
    expect(p.status).toBe('requires_action');
    expect(p.nextAction!.redirectUrl).not.toBe(hostedUrl);
    if (sub.headers.location !== RETURN_URL) expect(sub.headers.location).toBe(p.nextAction!.redirectUrl);
    expect((await http(s.url, 'GET', `${p.nextAction!.redirectUrl}?result=success`, { key: null })).status).toBe(303);
    await c.waitFor(r.json.id, (x) => x.status === 'succeeded');
  });

  it('hosted page: invalid card details keep the page usable; cancel gives canceled; an unused page expires', async () => {
    const r = await c.hosted();
    const url = r.json.next_action.redirect_url;
    expect((await submitHosted(s, url, '4242424242424241')).status).toBe(400);
    expect((await submitHosted(s, url, CARDS.succeeds, { cvc: '1' })).status).toBe(400);
    const cancel = await submitHosted(s, url, '', { action: 'cancel' });
    expect(cancel.status).toBe(303);
    const canceled = await c.waitFor(r.json.id, (x) => x.status === 'canceled');
    expect(canceled.nextAction).toBeNull();
    conforms((await c.get(`/v1/payments/${r.json.id}`)).json, presentation);
    const e = client(expiring, KEYS.acmeTest);
    const h = await e.hosted();
    await e.waitFor(h.json.id, (x) => x.status === 'expired', 5000);
    expect((await http(expiring.url, 'GET', h.json.next_action.redirect_url, { key: null })).status).toBe(410);
  });

  it('both input shapes are accepted, validated by the shape the body uses', async () => {
    const a = await c.post('/v1/payments', createBody({}, 'A'));
    const b = await c.post('/v1/payments', createBody({}, 'B'));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(normalizePayment(a.json)!.presentation).toBe(presentation);
    // A B body with A's required field names missing is judged as B (no return_url needed without 3DS).
    const { return_url: _r, ...noReturn } = createBody({}, 'B');
    expect((await c.post('/v1/payments', noReturn)).status).toBe(201);
  });
});
