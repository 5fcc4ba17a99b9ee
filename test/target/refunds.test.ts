import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUND_SUBCODE_PATTERN, normalizePayment, validatePaymentShape } from '../../src/spec/index.ts';
import { SANDBOX_REFUND_FAIL_AMOUNT, type RunningService } from '../../src/target/index.ts';
import { CARDS, KEYS, card, client, closeAll, start, type Client } from './helpers.ts';

afterAll(closeAll);

describe.each(['A', 'B'] as const)('refunds, presentation %s', (presentation) => {
  let s: RunningService;
  let c: Client;
  beforeAll(async () => {
    s = await start({ presentation, rateLimit: 100_000 });
    c = client(s, KEYS.acmeTest);
  });
  const paid = async (amount = 5000) => {
    const r = await c.create({ amount });
    await c.waitFor(r.json.id, (x) => x.status === 'succeeded');
    return r.json.id as string;
  };

  it('REF-1/2/6: partial and full refunds on both paths; pending then succeeded; refunded total counts succeeded only; refunded_at at the full amount', async () => {
    const id = await paid(5000);
    const r1 = await c.refund(id, { amount: 1000 });
    expect(r1.status).toBe(201);
    expect(r1.json).toMatchObject({ object: 'refund', payment_id: id, amount: 1000, status: 'pending' });
    expect(r1.json.id).toMatch(/^re_/);
    expect(r1.json[presentation === 'A' ? 'created_at' : 'created']).toEqual(expect.any(Number));
    const r2 = await c.post('/v1/refunds', { payment_id: id, amount: SANDBOX_REFUND_FAIL_AMOUNT });
    expect(r2.status).toBe(201);
    const after = await c.waitFor(id, (p) => p.refunds!.every((r) => r.status !== 'pending'));
    expect(after.status).toBe('succeeded');
    expect(after.refunds!.map((r) => [r.id, r.status])).toEqual([
      [r1.json.id, 'succeeded'],
      [r2.json.id, 'failed'],
    ]);
    expect(after.amountRefunded).toBe(1000);
    expect(after.refundedAt).toBeNull();
    if (presentation === 'A') expect(after.amountRefundable).toBe(4000);
    // No amount: the remaining refundable amount.
    const r3 = await c.refund(id, {});
    expect(r3.json.amount).toBe(4000);
    const full = await c.waitFor(id, (p) => p.amountRefunded === 5000);
    expect(full.refundedAt).toEqual(expect.any(Number));
    expect(full.amount).toBe(5000);
    if (presentation === 'A') expect(full.amountRefundable).toBe(0);
    const body = (await c.get(`/v1/payments/${id}`)).json;
    expect(validatePaymentShape(body)).toEqual([]);
    expect(normalizePayment(body)!.refunds).toHaveLength(3);
  });

  it('REF-4: above the refundable amount (pending refunds included) gives 422 action_not_allowed with the bracketed sub-code', async () => {
    const id = await paid(1000);
    expect((await c.refund(id, { amount: 600 })).status).toBe(201);
    const r = await c.refund(id, { amount: 500 });
    expect(r.status).toBe(422);
    expect(r.json.error).toMatchObject({ type: 'invalid_request_error', code: 'action_not_allowed' });
    expect(r.json.error.message).toMatch(REFUND_SUBCODE_PATTERN);
    await c.waitFor(id, (p) => p.amountRefunded === 600);
    expect((await c.refund(id, { amount: 400 })).status).toBe(201);
    const none = await c.refund(id, {});
    expect(none.status).toBe(422);
    expect(none.json.error.message).toMatch(/\[already_refunded\]/);
  });

  it('REF-5: refunds of payments that are not succeeded give 422 action_not_allowed', async () => {
    const failed = await c.create({ card: card(CARDS.do_not_honor) });
    await c.waitFor(failed.json.id, (p) => p.status === 'failed');
    const hosted = await c.hosted();
    for (const id of [failed.json.id, hosted.json.id]) {
      const r = await c.refund(id, { amount: 1 });
      expect(r.status).toBe(422);
      expect(r.json.error.code).toBe('action_not_allowed');
      expect(r.json.error.message).toMatch(REFUND_SUBCODE_PATTERN);
    }
  });

  it('REF-3: concurrent refunds never add up to more than the amount', async () => {
    const id = await paid(1000);
    const rs = await Promise.all(Array.from({ length: 8 }, () => c.refund(id, { amount: 300 })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(3);
    expect(rs.filter((r) => r.status === 422)).toHaveLength(5);
    const p = await c.waitFor(id, (x) => x.refunds!.every((r) => r.status !== 'pending'));
    expect(p.amountRefunded).toBe(900);
  });

  it('refund validation: unknown payment 404, missing payment_id and bad amounts 400', async () => {
    expect((await c.refund('pay_nope', {})).status).toBe(404);
    const missing = await c.post('/v1/refunds', { amount: 5 });
    expect(missing.status).toBe(400);
    expect(missing.json.error.param).toBe('payment_id');
    const id = await paid(100);
    for (const amount of [0, -1, 1.5, '5']) {
      const r = await c.refund(id, { amount });
      expect(r.status).toBe(400);
      expect(r.json.error.param).toBe('amount');
    }
  });
});
