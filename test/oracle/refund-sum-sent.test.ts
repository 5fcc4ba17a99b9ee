/**
 * REF-3 sums a payment's succeeded refunds. The spec shows no refund body, so a service may answer
 * a refund without its amount: the amount the run sent for that refund then stands in. Found in
 * review: refunds without a shown amount were left out of the sum, so only a displayed
 * refunded_amount above the amount could fail it, and a service capping that display passed.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, judgeOne, refundReq, resetSeq, retrieve } from './fixtures.ts';

beforeEach(() => resetSeq());

const P = 'pay_00000000-0000-4000-8000-0000000000e1';
/** Two refunds of 700 on a payment of 1000, their answers and the payment's list showing no amount. */
const records = (shownAmount: number | null) => [
  create({ id: P, t: 0, p: { status: 'succeeded', amount: 1000 }, sent: { amount: 1000 } }),
  refundReq(P, { seq: 2, t: 100, r: { id: 're_1', status: 'succeeded', amount: shownAmount }, sent: { amount: 700 } }),
  refundReq(P, { seq: 3, t: 100, r: { id: 're_2', status: 'succeeded', amount: shownAmount }, sent: { amount: 700 } }),
  retrieve(P, { t: 500, p: { status: 'succeeded', amount: 1000, amountRefunded: 1000 } }),
];

describe('REF-3 (refunds-within-amount) without refund amounts in the answers', () => {
  it('the amounts sent stand in: 700 + 700 of 1000 is a violation', async () => {
    const r = await judgeOne('refunds-within-amount', records(null));
    expect(r.examples.map((e) => e.message)).toEqual([`payment ${P} (amount 1000) has succeeded refunds adding up to 1400: re_1, re_2`]);
  });

  it('amounts shown win over amounts sent', async () => {
    const r = await judgeOne('refunds-within-amount', records(400));
    expect(r.violations).toBe(0);
  });
});
