/**
 * A payment answered or listed in a status the transition table does not have (say `refunded`
 * after a full refund) is not parsed as a Payment, so the ledger never saw it: SM-2 and FT-1
 * were blind to it. status-transitions (SM-1) judges it from the answer itself. Found in review.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { normalizePayment, validatePaymentShape } from '../../src/spec/index.ts';
import { create, judgeOne, list, pay, resetSeq, retrieve } from './fixtures.ts';

beforeEach(() => resetSeq());

const P = 'pay_00000000-0000-4000-8000-0000000000d1';
const bodyB = (status: string) => ({ id: P, object: 'payment', amount: 1000, currency: 'EUR', status, livemode: false, created: 1_700_000_000, refunded_amount: 1000, refunds: [], redirect_url: null, next_action: null, description: null, metadata: {}, succeeded_at: null, failed_at: null, refunded_at: null, decline_code: null });

describe('SM-1 (status-transitions): statuses the table does not have', () => {
  it('a retrieve answered with status "refunded" is a violation', async () => {
    const body = bodyB('refunded');
    expect(normalizePayment(body)).toBeNull();
    const shapeProblems = validatePaymentShape(body);
    const r = await judgeOne('status-transitions', [create({ id: P, t: 0, p: { status: 'succeeded' } }), retrieve(P, { seq: 9, t: 1000, payment: null, shapeProblems })]);
    expect(r.examples.map((e) => e.message)).toEqual(['a payment was answered with "refunded" as its status, which the transition table does not have']);
    expect(r.examples[0].seqs).toEqual([9]);
  });

  it('a list entry with status "reversed" is a violation', async () => {
    const r = await judgeOne('status-transitions', [list([P], { seq: 4, t: 10, statuses: ['reversed'] })]);
    expect(r.examples.map((e) => e.message)).toEqual([`payment ${P} was listed with status "reversed", which the transition table does not have`]);
  });

  it('known statuses in either presentation pass', async () => {
    expect(validatePaymentShape(bodyB('succeeded'))).toEqual([]);
    const r = await judgeOne('status-transitions', [create({ id: P, t: 0 }), retrieve(P, { t: 1000, p: pay({ id: P, status: 'succeeded' }) }), list([P], { t: 2000, statuses: ['succeeded'] })]);
    expect(r.violations).toBe(0);
  });
});
