/**
 * Error, auth and isolation rules where the oracle judged wrongly (review): answers of a refund
 * path the service does not serve are not the API's (ERR-1, ERR-5, RL-4, AUTH-1..3); a 403 only
 * on another's payment tells that it exists (SEC-1, AUTH-8); an unknown-id probe is judged on
 * whatever it got (PAY-17); a null CVC is no card data (PAY-9); the error object's field types
 * (ERR-1). Each keep case has its break case beside it.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { UNKNOWN_ID_PROBE } from '../../src/spec/index.ts';
import { LeakScanner } from '../../src/history/index.ts';
import { create, err, ex, judgeOne, K, rate, refundReq, resetSeq, retrieve } from './fixtures.ts';

const P = 'pay_00000000-0000-4000-8000-0000000000aa';
const P2 = 'pay_00000000-0000-4000-8000-0000000000cc';
const OWN = 'pay_00000000-0000-4000-8000-0000000000bb';
beforeEach(() => resetSeq());

describe('a refund path the service does not serve', () => {
  // Served: POST /v1/refunds. The payment-scoped path gets the router's 404 text/html, unless
  // another refund on it was answered (then it is served, and its 404 is the API's).
  const history = (paymentPathServed: boolean) => [
    create({ id: P, p: { status: 'succeeded', wireStatus: 'succeeded' }, rate: rate(1_700_000_060, 4) }),
    refundReq(P, { seq: 20, t: 100, status: 404, contentType: 'text/html; charset=utf-8', json: false, error: null, rate: null, sent: { path: `/v1/payments/${P}/refund`, method: 'POST', amount: 100 } }),
    refundReq(P, { op: 'refund_create', t: 200, rate: rate(1_700_000_060, 3), sent: { path: '/v1/refunds', method: 'POST', amount: 100 } }),
    ...(paymentPathServed ? [refundReq(P, { t: 250, rate: rate(1_700_000_060, 2), sent: { path: `/v1/payments/${P}/refund`, method: 'POST', amount: 100 } })] : []),
  ];
  for (const id of ['error-body-complete', 'json-and-integers', 'rate-headers-present', 'error-code-table']) {
    it(`${id}: its answers are not judged; on a served path they are`, async () => {
      expect((await judgeOne(id, history(false))).status).not.toBe('fail');
      resetSeq();
      if (id !== 'error-code-table') expect((await judgeOne(id, history(true))).status).toBe('fail');
    });
  }
  it('an auth probe there answered by the router is not judged; on a served path it is', async () => {
    const probe = ex({ seq: 30, op: 'refund', t: 300, status: 404, contentType: 'text/html', json: false, sent: { auth: 'missing', method: 'POST', path: '/v1/payments/pay_x/refund' } });
    expect((await judgeOne('auth-malformed-header', [...history(false), probe])).status).not.toBe('fail');
    resetSeq();
    expect((await judgeOne('auth-malformed-header', [...history(true), probe])).status).toBe('fail');
  });
});

describe('SEC-1 / AUTH-8: a 403 on foreign access', () => {
  it('refused only on another merchant\'s payment: a violation (it tells the payment exists)', async () => {
    const r = await judgeOne('merchant-isolation', [
      create({ key: K.other, id: P }),
      create({ key: K.test, id: OWN }),
      retrieve(OWN, { t: 50 }),
      retrieve(P, { seq: 50, t: 100, status: 403, error: err('not_permitted') }),
    ]);
    expect(r.status).toBe('fail');
  });
  it('refused on the key\'s own payment too: the key lacks the permission, nothing to judge', async () => {
    const r = await judgeOne('merchant-isolation', [
      create({ key: K.other, id: P }),
      create({ key: K.other, id: P2 }),
      create({ key: K.test, id: OWN }),
      retrieve(OWN, { t: 50, status: 403, error: err('not_permitted') }),
      retrieve(P, { t: 100, status: 403, error: err('not_permitted') }),
      retrieve(P2, { t: 110, status: 404, error: err('resource_missing') }),
    ]);
    expect(r.status).toBe('pass');
  });
  it('mode isolation: a test key refused 403 only on a live payment fails', async () => {
    const r = await judgeOne('mode-isolation', [
      create({ key: K.live, id: P, p: { livemode: true } }),
      create({ key: K.test, id: OWN }),
      retrieve(OWN, { t: 50 }),
      retrieve(P, { t: 100, status: 403, error: err('not_permitted') }),
    ]);
    expect(r.status).toBe('fail');
  });
});

describe('PAY-17: an unknown-id probe is judged on whatever it got', () => {
  const probe = (o: Parameters<typeof retrieve>[1]) => retrieve('pay_5f1e0c8e-1111-4222-8333-444455556666', { group: 'unknown-id', ...o, sent: { paymentId: 'pay_5f1e0c8e-1111-4222-8333-444455556666', badInput: { ...UNKNOWN_ID_PROBE } } });
  it('400 or 200 fails; 404 resource_missing passes; 429 is not judged', async () => {
    expect((await judgeOne('unknown-payment-404', [probe({ status: 400, error: err('parameter_invalid', { param: 'id' }) })])).status).toBe('fail');
    resetSeq();
    expect((await judgeOne('unknown-payment-404', [probe({})])).status).toBe('fail');
    resetSeq();
    expect((await judgeOne('unknown-payment-404', [probe({ status: 404, error: err('resource_missing') })])).status).toBe('pass');
    resetSeq();
    expect((await judgeOne('unknown-payment-404', [probe({ status: 429, error: err('rate_limit_exceeded') })])).status).toBe('not-exercised');
  });
});

describe('PAY-9: a CVC is returned only when it has digits', () => {
  const scan = (card: Record<string, unknown>) => new LeakScanner().structural({ id: P, card }) ?? [];
  it('null, empty or masked: no leak; 3 or 4 digits: a leak', () => {
    expect(scan({ last4: '4242', cvc: null })).toEqual([]);
    expect(scan({ last4: '4242', cvc: '' })).toEqual([]);
    expect(scan({ last4: '4242', cvc: '***' })).toEqual([]);
    expect(scan({ last4: '4242', cvc: '123' })).toEqual(['cvc returned at card.cvc']);
    expect(scan({ last4: '4242', cvc: 1234 })).toEqual(['cvc returned at card.cvc']);
  });
});

describe('ERR-1: the error object\'s field types', () => {
  it('param and doc_url must be a string or null, type a string', async () => {
    const bad = await judgeOne('error-body-complete', [create({ status: 400, error: err('parameter_invalid', { param: 42 as unknown as string, doc_url: { x: 1 } as unknown as string }) })]);
    expect(bad.status).toBe('fail');
    expect(bad.examples[0].message).toMatch(/param 42 is not a string or null; doc_url .* is not a string or null/);
    resetSeq();
    expect((await judgeOne('error-body-complete', [create({ status: 400, error: err('parameter_invalid', { param: 'amount', doc_url: null }) })])).status).toBe('pass');
  });
});

describe('the unknown-id probe as the client records it', () => {
  it('retrieve(id, { unknownId: true }) carries the PAY-17 probe; a plain retrieve carries none', async () => {
    const { retrieveRequest } = await import('../../src/client/request.ts');
    const t = { origin: 'http://127.0.0.1:1', basePath: '' } as Parameters<typeof retrieveRequest>[0];
    expect(retrieveRequest(t, 'pay_x', [], true).sent).toEqual({ paymentId: 'pay_x', badInput: { ...UNKNOWN_ID_PROBE } });
    expect(retrieveRequest(t, 'pay_x', []).sent).toEqual({ paymentId: 'pay_x' });
  });
});

describe('bodies and headers the recorder could not read as one value', () => {
  it('ERR-5: a Content-Type of two joined values is not application/json; one with a charset is', async () => {
    const { list } = await import('./fixtures.ts');
    expect((await judgeOne('json-and-integers', [list([], { contentType: 'application/json, text/html' })])).status).toBe('fail');
    resetSeq();
    expect((await judgeOne('json-and-integers', [list([], { contentType: 'application/json; charset=utf-8' })])).status).toBe('pass');
  });
  it('LIST-3: a list page too long to parse (over 4 MiB) breaks the limit; LIST-1 does not call it envelope-less', async () => {
    const { list } = await import('./fixtures.ts');
    const huge = () => [list([], { list: null, oversizedBodyChars: 10_000_000 })];
    const limit = await judgeOne('list-limit', huge());
    expect(limit.status).toBe('fail');
    expect(limit.examples[0].message).toMatch(/10000000 characters long/);
    resetSeq();
    expect((await judgeOne('list-envelope', huge())).status).toBe('not-exercised');
  });
});
