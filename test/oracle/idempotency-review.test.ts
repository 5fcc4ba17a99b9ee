import { beforeEach, describe, expect, it } from 'vitest';
import { create, err, ex, judgeOne, pay, refundObj, refundReq, resetSeq, retrieve, runRec } from './fixtures.ts';
import { judge } from '../../src/oracle/index.ts';

beforeEach(() => resetSeq());

const A = 'pay_00000000-0000-4000-8000-0000000000a1';
const P = 'pay_00000000-0000-4000-8000-0000000000e1';
const inUse = { status: 409, error: err('idempotency_key_in_use', { type: 'idempotency_error' }), payment: null };
const badAmount = { case: 'idempotency/error-then-retry/amount-below-minimum', expectStatus: 400, expectCode: 'parameter_invalid', expectParam: 'amount' };

describe('IDEM: a 409 in_use just after an answer (the key released late) is judged by IDEM-5 alone', () => {
  // The server frees the key just after its 201 left; the same-body replay sent 5 ms later finds it held.
  const recs = () => [create({ seq: 1, idemKey: 'k', id: A, t: 0, dur: 50 }), create({ seq: 2, idemKey: 'k', t: 55, ...inUse })];
  it('idem-in-flight (IDEM-5) excuses it', async () => {
    expect((await judgeOne('idem-in-flight', recs())).violations).toBe(0);
  });
  it('idem-replay (IDEM-3) must excuse it too', async () => {
    expect((await judgeOne('idem-replay', recs())).violations).toBe(0);
  });
  it('idem-errors-not-kept (IDEM-7): 409 in_use 5 ms after a 400 must be excused too', async () => {
    const r = [
      create({ seq: 1, idemKey: 'k', t: 0, dur: 50, status: 400, error: err('parameter_invalid', { param: 'amount' }), bodyDigest: 'bad', sent: { amount: 0, badInput: badAmount } }),
      create({ seq: 2, idemKey: 'k', t: 55, ...inUse }),
    ];
    expect((await judgeOne('idem-in-flight', r)).violations).toBe(0);
    expect((await judgeOne('idem-errors-not-kept', r)).violations).toBe(0);
  });
  it('refund-idempotency (REF-7) must excuse it too', async () => {
    const r = [refundReq(P, { seq: 1, idemKey: 'r', t: 0, dur: 50, r: { id: 're_1' }, sent: { amount: 500 } }), refundReq(P, { seq: 2, idemKey: 'r', t: 55, status: 409, error: err('idempotency_key_in_use', { type: 'idempotency_error' }), sent: { amount: 500 } })];
    expect((await judgeOne('refund-idempotency', r)).violations).toBe(0);
  });
});

describe('REF-7: a refund replay answered with the Payment (a conforming body) that refunded again', () => {
  // Original refund answer: the payment with re_1. The same-key same-body replay executed again: re_2 added.
  const answer = (seq: number, t: number, ids: string[]) =>
    ex({
      seq,
      t,
      op: 'refund',
      idemKey: 'r',
      bodyDigest: 'r1',
      status: 201,
      refund: null,
      payment: pay({ id: P, status: 'succeeded', amount: 10_000, amountRefunded: 0, refunds: ids.map((id) => refundObj({ id, paymentId: P, amount: 500, status: 'pending' })) }),
      sent: { paymentId: P, amount: 500 },
    });
  const recs = () => [
    create({ seq: 1, idemKey: 'c', id: P, t: 0, p: { status: 'succeeded', amount: 10_000 }, sent: { amount: 10_000 } }),
    answer(2, 100, ['re_1']),
    answer(3, 200, ['re_1', 're_2']),
    retrieve(P, { seq: 4, t: 2000, p: { status: 'succeeded', amount: 10_000, amountRefunded: 1000, refunds: [refundObj({ id: 're_1', paymentId: P, amount: 500, status: 'succeeded' }), refundObj({ id: 're_2', paymentId: P, amount: 500, status: 'succeeded' })] } }),
  ];
  for (const id of ['refund-idempotency']) {
    it(`${id} fails the double refund`, async () => {
      const r = await judgeOne(id, recs());
      expect(r.status).toBe('fail');
    });
  }
  it('one idempotency key, one refund: the replay answered before the refund was made is still one request', async () => {
    // The same two answers without the second refund: nothing to flag.
    const keep = [recs()[0], answer(2, 100, ['re_1']), answer(3, 200, ['re_1'])];
    expect((await judgeOne('refund-idempotency', keep)).violations).toBe(0);
  });
  it('a refund made by a request still in flight when the payment was read is counted at the end', async () => {
    // The GET (seq 3) sees re_2 from a second key's request whose record comes after it.
    const r = [
      recs()[0],
      answer(2, 100, ['re_1']),
      retrieve(P, { seq: 3, t: 300, p: { status: 'succeeded', amount: 10_000, refunds: [refundObj({ id: 're_1', paymentId: P, amount: 500, status: 'pending' }), refundObj({ id: 're_2', paymentId: P, amount: 400, status: 'pending' })] } }),
      refundReq(P, { seq: 4, idemKey: 'r2', t: 250, dur: 200, r: { id: 're_2' }, sent: { amount: 400 } }),
    ];
    expect((await judgeOne('refund-idempotency', r)).violations).toBe(0);
  });
  it('a refusal (422) made no refund, so it does not excuse a second one', async () => {
    const r = [
      recs()[0],
      answer(2, 100, ['re_1']),
      refundReq(P, { seq: 3, idemKey: 'r2', t: 150, status: 422, error: err('action_not_allowed'), sent: { amount: 20_000 } }),
      retrieve(P, { seq: 4, t: 2000, p: { status: 'succeeded', amount: 10_000, refunds: [refundObj({ id: 're_1', paymentId: P, amount: 500, status: 'succeeded' }), refundObj({ id: 're_2', paymentId: P, amount: 500, status: 'succeeded' })] } }),
    ];
    expect((await judgeOne('refund-idempotency', r)).violations).toBe(1);
  });
  it('no refund or idempotency invariant fails in a full judge', async () => {
    const { invariants } = await judge([runRec(), ...recs()]);
    const failed = invariants.filter((i) => i.status === 'fail' && /refund|idem/.test(i.id)).map((i) => i.id);
    expect(failed.length).toBeGreaterThan(0);
  });
});

describe('IDEM-7: an error kept and replayed under a fresh request_id', () => {
  it('a valid retry after a 400 gets the same 400 (param amount) back: the error was kept', async () => {
    const r = await judgeOne('idem-errors-not-kept', [
      create({ seq: 1, idemKey: 'k', t: 0, status: 400, error: err('parameter_invalid', { param: 'amount', request_id: 'req_1' }), bodyDigest: 'bad', sent: { amount: 0, badInput: badAmount } }),
      create({ seq: 2, idemKey: 'k', t: 100, status: 400, error: err('parameter_invalid', { param: 'amount', request_id: 'req_2' }), bodyDigest: 'good', sent: { amount: 1000 } }),
    ]);
    expect(r.status).toBe('fail');
  });
});

describe('IDEM-4: a valid different body refused with something other than 409', () => {
  it('refund different body answered 400 parameter_invalid, beside a payment different body answered 409', async () => {
    const r = await judgeOne('idem-different-body', [
      create({ seq: 1, idemKey: 'k', id: A, t: 0 }),
      create({ seq: 2, idemKey: 'k', bodyDigest: 'd2', t: 100, status: 409, error: err('idempotency_key_reused'), payment: null }),
      refundReq(P, { seq: 3, idemKey: 'r', t: 200, r: { id: 're_1' }, sent: { amount: 500 } }),
      refundReq(P, { seq: 4, idemKey: 'r', t: 300, status: 400, error: err('parameter_invalid', { param: 'amount' }), sent: { amount: 501 }, group: 'idem-diff-refund' }),
    ]);
    expect(r.status).toBe('fail');
  });
  it('a 422 for a refund, a bad-input probe, or a user scenario\'s unmarked body is not judged', async () => {
    const r = await judgeOne('idem-different-body', [
      create({ seq: 1, idemKey: 'k', id: A, t: 0 }),
      create({ seq: 2, idemKey: 'k', bodyDigest: 'd2', t: 100, status: 400, error: err('parameter_invalid', { param: 'amount' }), payment: null }),
      refundReq(P, { seq: 3, idemKey: 'r', t: 200, r: { id: 're_1' }, sent: { amount: 500 } }),
      refundReq(P, { seq: 4, idemKey: 'r', t: 300, status: 422, error: err('action_not_allowed'), sent: { amount: 501 }, group: 'idem-diff-refund' }),
    ]);
    expect(r.violations).toBe(0);
  });
});

describe('IDEM-2: a key of exactly 255 characters', () => {
  it('some invariant citing IDEM-2 fails', async () => {
    const key255 = 'k'.repeat(255);
    const recs = [
      runRec(),
      create({ seq: 1, idemKey: 'k1', id: A, t: 0 }),
      create({ seq: 2, idemKey: key255, t: 100, status: 400, error: err('parameter_invalid', { param: 'Idempotency-Key', message: 'Invalid Idempotency-Key: at most 255 characters.' }), sent: { cardOutcome: 'succeeds' } }),
    ];
    const { invariants } = await judge(recs);
    const failed = invariants.filter((i) => i.status === 'fail').map((i) => `${i.id} ${i.rules.join(',')}`);
    expect(failed.some((s) => /IDEM-2/.test(s))).toBe(true);
  });
  it('a 255-character key accepted passes, and a 400 about something else is not the key\'s', async () => {
    const key255 = 'k'.repeat(255);
    const ok = await judgeOne('idem-key-length', [create({ seq: 1, idemKey: key255, id: A, t: 0 })]);
    expect(ok).toMatchObject({ status: 'pass', violations: 0 });
    const other = await judgeOne('idem-key-length', [create({ seq: 1, idemKey: key255, t: 0, status: 400, error: err('parameter_invalid', { param: 'currency' }), payment: null })]);
    expect(other.violations).toBe(0);
  });
});
