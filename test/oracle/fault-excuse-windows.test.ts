/**
 * A fault excuses an outcome from the moment the request that decides it is in flight, not from
 * its answer: the processor call happens while the request is in flight. Found in review: a
 * hosted submit (TEST-3) and a refund request (REF-1) that crossed a fault which healed before
 * their answers were judged as if no fault had touched them.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, ex, fault, judgeOne, refundReq, resetSeq, retrieve } from './fixtures.ts';

beforeEach(() => resetSeq());

describe('TEST-3 (hosted-test-cards): the fault excuse starts when the submit was sent', () => {
  const id = 'pay_00000000-0000-4000-8000-0000000000aa';
  const records = (faultAt: number) => [
    fault({ tStart: faultAt, tEnd: faultAt + 500 }),
    create({ op: 'create_hpp', id, t: 0, dur: 20, p: { status: 'requires_action', hosted: true } }),
    ex({ op: 'submit_hpp', status: 303, t: 900, dur: 800, sent: { paymentId: id, cardOutcome: 'succeeds' } }),
    retrieve(id, { t: 3000, p: { status: 'failed', failureCode: 'processing_error', hosted: true } }),
  ];

  it('a fault while the submit was in flight (healed before its answer) excuses the failed outcome', async () => {
    expect((await judgeOne('hosted-test-cards', records(1000))).violations).toBe(0);
  });

  it('a fault over before the submit was sent does not', async () => {
    const r = await judgeOne('hosted-test-cards', records(100));
    expect(r.status).toBe('fail');
  });
});

describe('REF-1 (refund-settles): the fault excuse starts when the refund request was sent', () => {
  const pid = 'pay_00000000-0000-4000-8000-000000000001';
  const records = (faultAt: number) => [
    fault({ tStart: faultAt, tEnd: faultAt + 500 }),
    create({ id: pid, t: 0, p: { status: 'succeeded' } }),
    refundReq(pid, { t: 900, dur: 700, r: { id: 're_x', status: 'pending' } }),
    retrieve(pid, { t: 60_000, p: { status: 'succeeded', refunds: [{ id: 're_x', paymentId: pid, amount: 100, status: 'pending', created: 1_700_000_001 }] } }),
  ];

  it('a fault while the request was in flight (healed before its answer) excuses a refund left pending', async () => {
    const r = await judgeOne('refund-settles', records(1000));
    expect(r.violations).toBe(0);
  });

  it('a fault over before the request was sent does not', async () => {
    const r = await judgeOne('refund-settles', records(100));
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/refund re_x of payment .* was still pending/);
  });
});
