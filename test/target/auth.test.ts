import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_FAILURES, ERROR_BODY_FIELDS } from '../../src/spec/index.ts';
import { DEFAULT_KEYS } from '../../src/target/index.ts';
import { CARDS, KEYS, client, closeAll, http, start } from './helpers.ts';
import type { RunningService } from '../../src/target/index.ts';

let s: RunningService;
beforeAll(async () => {
  s = await start({ timeScale: 0.01 });
});
afterAll(closeAll);

function expectAuthError(r: { status: number; json: any; headers: Record<string, unknown> }, message: string) {
  expect(r.status).toBe(401);
  expect(r.json.error.code).toBe('invalid_api_key');
  expect(r.json.error.type).toBe('authentication_error');
  expect(r.json.error.message).toBe(message);
  expect(r.json.error.request_id).toMatch(/^req_/);
  expect(Object.keys(r.json.error).sort()).toEqual([...ERROR_BODY_FIELDS].sort());
  // AUTH-4: no rate headers on 401.
  expect(Object.keys(r.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
}

describe('authentication (AUTH)', () => {
  it('default keys: two merchants, both test prefix forms, a live key each, one key without Direct API; bodies of 24+ alphanumerics', () => {
    const merchants = new Set(DEFAULT_KEYS.map((k) => k.merchant));
    expect([...merchants].sort()).toEqual(['acme', 'globex']);
    for (const m of merchants) {
      const ks = DEFAULT_KEYS.filter((k) => k.merchant === m).map((k) => k.key);
      expect(ks.some((k) => k.startsWith('svc_test_sk_'))).toBe(true);
      expect(ks.some((k) => k.startsWith('api_test_sk_'))).toBe(true);
      expect(ks.some((k) => k.startsWith('svc_live_sk_'))).toBe(true);
    }
    expect(DEFAULT_KEYS.filter((k) => !k.direct_api)).toHaveLength(1);
    for (const k of DEFAULT_KEYS) expect(k.key).toMatch(/^[a-z]+_(test|live)_sk_[A-Za-z0-9]{24,}$/);
  });

  it('AUTH-1: missing, malformed and non-Bearer Authorization give 401 with the first message', async () => {
    for (const authorization of [undefined, '', 'Bearer', `Basic ${KEYS.acmeTest}`, `Token ${KEYS.acmeTest}`, `Bearer ${KEYS.acmeTest} extra`]) {
      const r = await http(s.url, 'GET', '/v1/payments', authorization === undefined ? { key: null } : { authorization });
      expectAuthError(r, AUTH_FAILURES.malformed);
    }
  });

  it('AUTH-2: a key with no known prefix gives 401 with the format message', async () => {
    for (const key of ['sk_test_abcdefghijklmnopqrstuvwxyz', 'svc_prod_sk_abcdefghijklmnopqrstuvwxyz', 'hello']) {
      expectAuthError(await http(s.url, 'GET', '/v1/payments', { key }), AUTH_FAILURES.badPrefix);
    }
  });

  it('AUTH-3: a well-formed unknown key gives 401 with the not-recognised message, and never echoes the key (SEC-2)', async () => {
    for (const key of ['svc_test_sk_unknownKey000000000000000000', 'api_test_sk_unknownKey000000000000000000', 'svc_live_sk_unknownKey000000000000000000']) {
      const r = await http(s.url, 'GET', '/v1/payments', { key });
      expectAuthError(r, AUTH_FAILURES.unknown);
      expect(r.text).not.toContain(key);
    }
  });

  it('accepts both test prefix forms and the live prefix', async () => {
    for (const key of [KEYS.acmeTest, KEYS.acmeTestApi, KEYS.acmeLive, KEYS.globexTestApi]) {
      expect((await http(s.url, 'GET', '/v1/payments', { key })).status).toBe(200);
    }
  });

  it('AUTH-6: the key without Direct API permission gets 403 not_permitted on POST /v1/payments only, with rate headers', async () => {
    const c = client(s, KEYS.acmeNoDirect);
    const r = await c.create();
    expect(r.status).toBe(403);
    expect(r.json.error).toMatchObject({ code: 'not_permitted', type: 'authentication_error' });
    expect(r.headers['x-ratelimit-limit']).toBeDefined();
    expect((await c.hosted()).status).toBe(201);
    expect((await c.get('/v1/payments')).status).toBe(200);
  });

  it('AUTH-5 / AUTH-8 / SEC-1: livemode follows the key; payments are visible to one merchant and mode only', async () => {
    const test = client(s, KEYS.acmeTest);
    const testApi = client(s, KEYS.acmeTestApi);
    const live = client(s, KEYS.acmeLive);
    const globex = client(s, KEYS.globexTest);
    const t = await test.create();
    const l = await live.create({ card: { number: '5555555555554444', exp_month: 12, exp_year: 2099, cvc: '123', holder_name: 'Live' } });
    expect(t.status).toBe(201);
    expect(l.status).toBe(201);
    expect(t.json.livemode).toBe(false);
    expect(l.json.livemode).toBe(true);
    // Same merchant and mode, other prefix form: visible.
    expect((await testApi.get(`/v1/payments/${t.json.id}`)).status).toBe(200);
    for (const [c, id] of [
      [live, t.json.id],
      [test, l.json.id],
      [globex, t.json.id],
    ] as const) {
      const r = await c.get(`/v1/payments/${id}`);
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('resource_missing');
      const rf = await c.refund(id, {});
      expect(rf.status).toBe(404);
    }
    const testList = (await test.get('/v1/payments?limit=100')).json.data.map((p: any) => p.id);
    const liveList = (await live.get('/v1/payments?limit=100')).json.data.map((p: any) => p.id);
    const globexList = (await globex.get('/v1/payments?limit=100')).json.data.map((p: any) => p.id);
    expect(testList).toContain(t.json.id);
    expect(testList).not.toContain(l.json.id);
    expect(liveList).toEqual([l.json.id]);
    expect(globexList).not.toContain(t.json.id);
    // A live key with a non-test card goes through the (sandbox) processor like any other.
    const settled = await live.waitFor(l.json.id, (p) => p.status === 'succeeded');
    expect(settled.livemode).toBe(true);
  });

  it('AUTH-7: a live key never succeeds with a test card (Direct API: 422 card_declined; hosted page: failed)', async () => {
    const live = client(s, KEYS.acmeLive);
    for (const number of Object.values(CARDS)) {
      const r = await live.create({ card: { number, exp_month: 12, exp_year: 2099, cvc: '123', holder_name: 'L' } });
      expect(r.status).toBe(422);
      expect(r.json.error).toMatchObject({ type: 'card_error', code: 'card_declined' });
    }
    const h = await live.hosted();
    const form = new URLSearchParams({ number: CARDS.succeeds, exp_month: '12', exp_year: '2099', cvc: '123', holder_name: 'L' });
    const sub = await http(s.url, 'POST', h.json.next_action.redirect_url, { key: null, idem: null, body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(sub.status).toBe(303);
    const p = await live.waitFor(h.json.id, (x) => x.status !== 'requires_action');
    expect(p.status).toBe('failed');
  });
});
