import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/spec/index.ts';
import { bugFlags } from '../../src/target/bugs.ts';
import { IdempotencyStore, canonicalJson } from '../../src/target/idempotency.ts';
import type { RunningService } from '../../src/target/index.ts';
import { CARDS, KEYS, card, client, closeAll, createBody, freshIdem, http, start } from './helpers.ts';

let s: RunningService;
beforeAll(async () => {
  s = await start({ timeScale: 0.05 });
});
afterAll(closeAll);

async function countWithDescription(key: string, description: string): Promise<number> {
  const r = await http(s.url, 'GET', '/v1/payments?limit=100', { key });
  return r.json.data.filter((p: any) => p.description === description).length;
}

describe('idempotency (IDEM)', () => {
  it('IDEM-1: every POST without Idempotency-Key gives 400 parameter_missing', async () => {
    const c = client(s, KEYS.acmeTest);
    for (const r of [await c.create({}, { idem: null }), await c.hosted({}, { idem: null }), await c.post('/v1/refunds', { payment_id: 'pay_x' }, { idem: null })]) {
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({ code: 'parameter_missing', type: 'invalid_request_error' });
    }
  });

  it('IDEM-2: 255 characters are accepted, 256 refused with 400', async () => {
    const c = client(s, KEYS.acmeTest);
    expect((await c.create({}, { idem: 'a'.repeat(LIMITS.idempotencyKeyMaxLength) })).status).toBe(201);
    const r = await c.create({}, { idem: 'b'.repeat(LIMITS.idempotencyKeyMaxLength + 1) });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('parameter_invalid');
  });

  it('IDEM-3: same key and body replays the original response byte for byte and creates nothing new', async () => {
    const c = client(s, KEYS.acmeTest);
    const idem = freshIdem();
    const description = `replay-${idem}`;
    const body = createBody({ description });
    const a = await c.post('/v1/payments', body, { idem });
    await c.waitFor(a.json.id, (p) => p.status === 'succeeded');
    // Same request with the keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const b = await c.post('/v1/payments', reordered, { idem });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.text).toBe(a.text);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(await countWithDescription(KEYS.acmeTest, description)).toBe(1);
  });

  it('IDEM-4: same key with a different body gives 409 idempotency_key_reused', async () => {
    const c = client(s, KEYS.acmeTest);
    const idem = freshIdem();
    expect((await c.create({ amount: 100 }, { idem })).status).toBe(201);
    const r = await c.create({ amount: 101 }, { idem });
    expect(r.status).toBe(409);
    expect(r.json.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
  });

  it('IDEM-5/6: concurrent requests with one key create one payment; the others get 409 idempotency_key_in_use or the replay', async () => {
    const c = client(s, KEYS.acmeTest);
    const idem = freshIdem();
    const description = `race-${idem}`;
    const rs = await Promise.all(Array.from({ length: 8 }, () => c.create({ description }, { idem })));
    const created = rs.filter((r) => r.status === 201);
    const ids = new Set(created.map((r) => r.json.id));
    expect(ids.size).toBe(1);
    const conflicts = rs.filter((r) => r.status === 409);
    expect(conflicts.length).toBeGreaterThan(0);
    for (const r of conflicts) expect(r.json.error.code).toBe('idempotency_key_in_use');
    expect(created.length + conflicts.length).toBe(8);
    expect(await countWithDescription(KEYS.acmeTest, description)).toBe(1);
  });

  it('IDEM-7: only 2xx responses are kept: after an error, the same key executes again', async () => {
    const c = client(s, KEYS.acmeTest);
    const idem = freshIdem();
    expect((await c.create({ amount: 0 }, { idem })).status).toBe(400);
    expect((await c.create({ amount: 500 }, { idem })).status).toBe(201);
    // A refund refused while the payment waits for 3DS succeeds with the same key once it has succeeded.
    const p = await c.create({ card: card(CARDS.three_ds_challenge) });
    const ra = await c.waitFor(p.json.id, (x) => x.status === 'requires_action');
    const ridem = freshIdem();
    const refused = await c.refund(p.json.id, { amount: 100 }, { idem: ridem });
    expect(refused.status).toBe(422);
    expect((await http(s.url, 'GET', `${ra.nextAction!.redirectUrl}?result=success`, { key: null })).status).toBe(303);
    await c.waitFor(p.json.id, (x) => x.status === 'succeeded');
    expect((await c.refund(p.json.id, { amount: 100 }, { idem: ridem })).status).toBe(201);
  });

  it('IDEM-8: keys are scoped per API key', async () => {
    const idem = freshIdem();
    const body = createBody({ description: `scope-${idem}` });
    const a = await client(s, KEYS.acmeTest).post('/v1/payments', body, { idem });
    const b = await client(s, KEYS.acmeTestApi).post('/v1/payments', body, { idem });
    const g = await client(s, KEYS.globexTest).post('/v1/payments', body, { idem });
    expect([a.status, b.status, g.status]).toEqual([201, 201, 201]);
    expect(new Set([a.json.id, b.json.id, g.json.id]).size).toBe(3);
  });

  it('IDEM-9 / REF-7: keys are scoped per operation; both refund paths are one operation', async () => {
    const c = client(s, KEYS.acmeTest);
    const idem = freshIdem();
    const p = await c.create({ amount: 1000 }, { idem });
    const h = await c.hosted({ amount: 1000 }, { idem });
    expect(p.status).toBe(201);
    expect(h.status).toBe(201);
    expect(h.json.id).not.toBe(p.json.id);
    await c.waitFor(p.json.id, (x) => x.status === 'succeeded');
    const r1 = await c.refund(p.json.id, { amount: 100 }, { idem });
    expect(r1.status).toBe(201);
    const r2 = await c.post('/v1/refunds', { payment_id: p.json.id, amount: 100 }, { idem });
    expect(r2.status).toBe(201);
    expect(r2.text).toBe(r1.text);
    const r3 = await c.post('/v1/refunds', { payment_id: p.json.id, amount: 200 }, { idem });
    expect(r3.status).toBe(409);
  });

  it('IDEM-10: merchant_reference never deduplicates', async () => {
    const c = client(s, KEYS.acmeTest);
    const a = await c.create({ merchantReference: 1234567890 });
    const b = await c.create({ merchantReference: 1234567890 });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.json.id).not.toBe(b.json.id);
    expect(a.json.merchant_reference).toBe(1234567890);
  });

  it('IDEM-11: an entry expires after 24 hours (store clock)', () => {
    const store = new IdempotencyStore(bugFlags([]));
    const t0 = 1_000_000;
    expect(store.begin('k', 'f1', t0).kind).toBe('proceed');
    store.finish('k', 'f1', 201, '{}', 'application/json', t0);
    expect(store.begin('k', 'f2', t0 + LIMITS.idempotencyKeyLifetimeMs - 1).kind).toBe('different_body');
    expect(store.begin('k', 'f2', t0 + LIMITS.idempotencyKeyLifetimeMs).kind).toBe('proceed');
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(canonicalJson({ a: [1, { c: 3, d: 2 }], b: 1 }));
  });
});
