/**
 * How far a fault excuses an outcome. It excuses from the moment the request that decides the
 * outcome is in flight, not from its answer (found in review: a hosted submit, TEST-3, that crossed
 * a fault which healed before its answer was judged as if no fault had touched it). And it
 * excuses a slow refund, not a stranded one: REF-1 holds a refund still pending more than the
 * bound after the faults healed, as FT-2 holds payments (found in review: any fault at the start
 * excused a refund stuck for ever).
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

describe('REF-1 (refund-settles): a fault excuses a slow refund, not a stranded one', () => {
  const pid = 'pay_00000000-0000-4000-8000-000000000001';
  const records = (fault_: ReturnType<typeof fault> | null, lateAt: number) => [
    ...(fault_ ? [fault_] : []),
    create({ id: pid, t: 0, p: { status: 'succeeded' } }),
    refundReq(pid, { t: 900, dur: 700, r: { id: 're_x', status: 'pending' } }),
    retrieve(pid, { t: lateAt, p: { status: 'succeeded', refunds: [{ id: 're_x', paymentId: pid, amount: 100, status: 'pending', created: 1_700_000_001 }] } }),
  ];

  it('pending while a fault lasted, and within the bound after it healed: excused', async () => {
    const r = await judgeOne('refund-settles', records(fault({ tStart: 1000, tEnd: 50_000 }), 52_000));
    expect(r.violations).toBe(0);
  });

  it('pending long after the fault that touched its request healed: a violation', async () => {
    const r = await judgeOne('refund-settles', records(fault({ tStart: 1000, tEnd: 1500 }), 60_000));
    expect(r.examples.map((e) => e.message)).toEqual([expect.stringMatching(/refund re_x of payment .* was still pending 58\.5 s after the faults healed/)]);
  });

  it('a refund is made when the first answer naming it came, even one not showing it pending (a replay later does not move it)', async () => {
    const pending = { status: 'succeeded' as const, refunds: [{ id: 're_x', paymentId: pid, amount: 100, status: 'pending' as const, created: 1_700_000_001 }] };
    const recs = [
      create({ id: pid, t: 0, p: { status: 'succeeded' } }),
      // A status the spec does not name: the answer names the refund, its spans start at the retrieve.
      refundReq(pid, { t: 900, dur: 700, r: { id: 're_x', status: 'processing' as never } }),
      refundReq(pid, { t: 10_000, dur: 100, r: { id: 're_x', status: 'processing' as never } }),
      retrieve(pid, { t: 20_000, p: pending }),
      retrieve(pid, { t: 60_000, p: pending }),
    ];
    const r = await judgeOne('refund-settles', recs);
    expect(r.examples.map((e) => e.message)).toEqual([expect.stringMatching(/refund re_x of payment .* was still pending 58\.4 s after it was made \(bound .*, no fault\)/)]);
  });

  it('pending long after it was made with no fault: a violation', async () => {
    const r = await judgeOne('refund-settles', records(null, 60_000));
    expect(r.examples.map((e) => e.message)).toEqual([expect.stringMatching(/refund re_x of payment .* was still pending 58\.4 s after it was made \(bound .*, no fault\)/)]);
  });
});
