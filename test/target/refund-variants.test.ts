/**
 * The refund switches of the reference service (src/target/variants.ts): which refund path is
 * served (refundPaths), what the refund call answers (refundResponse) and what a refund event
 * carries (refundEvent), each against the default.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { normalizePayment } from '../../src/spec/index.ts';
import { variantByName } from '../../src/target/index.ts';
import { KEYS, client, closeAll, start, startReceiver, type Client } from './helpers.ts';

afterAll(closeAll);

async function paid(c: Client, amount = 1000): Promise<string> {
  const r = await c.create({ amount });
  await c.waitFor(r.json.id, (p) => p.status === 'succeeded');
  return r.json.id as string;
}

describe('refund path served', () => {
  it('default: both paths refund', async () => {
    const c = client(await start({ rateLimit: 100_000 }), KEYS.acmeTest);
    const id = await paid(c);
    expect((await c.refund(id, { amount: 100 })).status).toBe(201);
    expect((await c.post('/v1/refunds', { payment_id: id, amount: 100 })).status).toBe(201);
  });

  it('refund-path-payment-only: POST /v1/refunds answers 404 resource_missing and leaves the payment untouched', async () => {
    const c = client(await start({ rateLimit: 100_000, ...variantByName('refund-path-payment-only')!.options }), KEYS.acmeTest);
    const id = await paid(c);
    const top = await c.post('/v1/refunds', { payment_id: id, amount: 100 });
    expect(top.status).toBe(404);
    expect(top.json.error.code).toBe('resource_missing');
    expect((await c.payment(id))!.refunds).toEqual([]);
    expect((await c.refund(id, { amount: 100 })).status).toBe(201);
  });

  it('refund-path-refunds-only: POST /v1/payments/{id}/refund answers 405 and leaves the payment untouched', async () => {
    const c = client(await start({ rateLimit: 100_000, ...variantByName('refund-path-refunds-only')!.options }), KEYS.acmeTest);
    const id = await paid(c);
    const scoped = await c.refund(id, { amount: 100 });
    expect(scoped.status).toBe(405);
    expect(scoped.json.error.request_id).toMatch(/^req_/);
    expect((await c.payment(id))!.refunds).toEqual([]);
    expect((await c.post('/v1/refunds', { payment_id: id, amount: 100 })).status).toBe(201);
  });
});

describe('refund response shape', () => {
  it('default: a Refund with its amount', async () => {
    const c = client(await start({ rateLimit: 100_000 }), KEYS.acmeTest);
    const id = await paid(c);
    const r = await c.refund(id, { amount: 100 });
    expect(r.json).toMatchObject({ object: 'refund', payment_id: id, amount: 100, status: 'pending' });
  });

  it('refund-response-payment: the Payment, whose refunds list the new refund', async () => {
    const c = client(await start({ rateLimit: 100_000, ...variantByName('refund-response-payment')!.options }), KEYS.acmeTest);
    const id = await paid(c);
    const r = await c.refund(id, { amount: 100 });
    expect(r.status).toBe(201);
    const p = normalizePayment(r.json)!;
    expect(p.id).toBe(id);
    expect(p.refunds!.map((x) => [x.amount, x.status])).toEqual([[100, 'pending']]);
  });

  it('refund-response-minimal: {id, status, payment_id} and nothing else', async () => {
    const c = client(await start({ rateLimit: 100_000, ...variantByName('refund-response-minimal')!.options }), KEYS.acmeTest);
    const id = await paid(c);
    const r = await c.refund(id, { amount: 100 });
    expect(r.status).toBe(201);
    expect(Object.keys(r.json).sort()).toEqual(['id', 'payment_id', 'status']);
    expect(r.json).toMatchObject({ payment_id: id, status: 'pending' });
    const after = await c.waitFor(id, (p) => (p.refunds ?? []).every((x) => x.status !== 'pending'));
    expect(after.refunds!.map((x) => x.id)).toEqual([r.json.id]);
  });
});

describe('refund event payload', () => {
  it('refund-event-minimal: data.refund is {payment_id, amount, status}, without the refund\'s id', async () => {
    const rx = await startReceiver();
    try {
      const c = client(await start({ rateLimit: 100_000, webhookUrls: [{ url: rx.url }], ...variantByName('refund-event-minimal')!.options }), KEYS.acmeTest);
      const id = await paid(c);
      await c.refund(id, { amount: 100 });
      const deadline = Date.now() + 10_000;
      while (!rx.deliveries.some((d) => String(d.body?.type).startsWith('refund.')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const ev = rx.deliveries.find((d) => String(d.body?.type).startsWith('refund.'))!;
      expect(ev.body.data.refund).toEqual({ payment_id: id, amount: 100, status: ev.body.type === 'refund.succeeded' ? 'succeeded' : 'failed' });
    } finally {
      await rx.close();
    }
  });
});
