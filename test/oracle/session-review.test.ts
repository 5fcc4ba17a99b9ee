/**
 * Second review of the session's oracle changes: each case failed before its fix (the crowded
 * refund count on payments the run did not make and across shards, 409 in_use refusals taken as
 * lock holders, 401/403 read as a kept error, a fresh first window assumed from limit - 1).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, err, ex, fault, judgeOne, pay, refundObj, refundReq, resetSeq, retrieve, runRec } from './fixtures.ts';
import { rl, S } from './cases/rate.ts';

beforeEach(() => resetSeq());

const P = 'pay_00000000-0000-4000-8000-0000000000e1';
const card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 };
const remote = runRec({ target: { url: 'http://10.0.0.1', embedded: false, presentation: 'B' } });

describe('REF-7 crowded check (refund-idempotency)', () => {
  it('FALSE FAIL: a payment the run did not create (refunded before the run) lists its refunds on GET', async () => {
    // A user scenario reads an existing, already refunded payment: no refund request of the run concerns it.
    const recs = [retrieve(P, { seq: 1, t: 100, p: { status: 'succeeded', amount: 10_000, amountRefunded: 500, refunds: [refundObj({ id: 're_old', paymentId: P, amount: 500, status: 'succeeded' })] } })];
    const r = await judgeOne('refund-idempotency', recs);
    expect(r.violations).toBe(0);
  });
  it('FALSE FAIL: merged shards: the refund request sits on a shard whose clock slack is larger than the reader\'s', async () => {
    // Shard B (slack 300 ms) refunds at recorded 1100 (truly as early as 800); shard A (slack 5 ms) reads at 950-1000 and sees it.
    const recs = [
      create({ seq: 1, idemKey: 'c', id: P, t: 0, p: { status: 'succeeded', amount: 10_000 }, sent: { amount: 10_000 }, clockSlackMs: 5 }),
      retrieve(P, { seq: 2, t: 950, dur: 50, clockSlackMs: 5, p: { status: 'succeeded', amount: 10_000, refunds: [refundObj({ id: 're_1', paymentId: P, amount: 500, status: 'pending' })] } }),
      refundReq(P, { seq: 3, idemKey: 'r1', t: 1100, dur: 50, clockSlackMs: 300, r: { id: 're_1' }, sent: { amount: 500 } }),
    ];
    const r = await judgeOne('refund-idempotency', recs);
    expect(r.violations).toBe(0);
  });
});

describe('IDEM-3 (idem-replay): 409 in_use "just after" an answer', () => {
  it('FALSE PASS: a key never released after success, retried in a tight loop: every retry excused by the previous 409', async () => {
    const inUse = { status: 409, error: err('idempotency_key_in_use', { type: 'idempotency_error' }), payment: null };
    const A = 'pay_00000000-0000-4000-8000-0000000000a1';
    const recs = [create({ seq: 1, idemKey: 'k', id: A, t: 0, dur: 50 })];
    // Retries every 20 ms for 2 s, each answered 409 in_use in 5 ms: 1.9 s after the answer the key is still held.
    for (let i = 0; i < 100; i++) recs.push(create({ seq: 2 + i, idemKey: 'k', t: 60 + i * 20, dur: 5, ...inUse }));
    const r = await judgeOne('idem-replay', recs);
    expect(r.violations).toBeGreaterThan(0);
  });
  it('FALSE PASS (IDEM-7): an error that keeps the key for ever, retried in a tight loop, is excused the same way', async () => {
    const inUse = { status: 409, error: err('idempotency_key_in_use', { type: 'idempotency_error' }), payment: null };
    const recs = [create({ seq: 1, idemKey: 'k', t: 0, dur: 50, status: 400, error: err('parameter_invalid', { param: 'amount' }), bodyDigest: 'bad' })];
    for (let i = 0; i < 100; i++) recs.push(create({ seq: 2 + i, idemKey: 'k', t: 60 + i * 20, dur: 5, ...inUse }));
    const r = await judgeOne('idem-errors-not-kept', recs);
    expect(r.violations).toBeGreaterThan(0);
  });
});

describe('IDEM-7 (idem-errors-not-kept): kept-error signature', () => {
  const badAmount = { case: 'idempotency/error-then-retry/amount-below-minimum', expectStatus: 400, expectCode: 'parameter_invalid', expectParam: 'amount' };
  for (const [status, code] of [[403, 'not_permitted'], [401, 'invalid_api_key']] as const) {
    it(`FALSE FAIL: the bad-input probe and its valid retry both refused ${status} ${code} (key lacks permission / backend unreachable): nothing was kept`, async () => {
      const type = status === 401 ? 'authentication_error' : 'authentication_error';
      const e = () => err(code, { type, message: `refused ${code}`, param: null });
      const recs = [
        create({ seq: 1, idemKey: 'k', t: 0, dur: 20, status, error: { ...e(), request_id: 'req_a' }, bodyDigest: 'bad', sent: { amount: 0, badInput: badAmount } }),
        create({ seq: 2, idemKey: 'k', t: 100, dur: 20, status, error: { ...e(), request_id: 'req_b' } }),
      ];
      const r = await judgeOne('idem-errors-not-kept', recs);
      expect(r.violations).toBe(0);
    });
  }
});

describe('RL-2 fresh first window (rate-window-fixed)', () => {
  it('FALSE FAIL: a one-window run on a service reporting Remaining before counting; one request before the run opened the window', async () => {
    // The window opened 40 s before the run (reset S+20); the service reports before counting, so the
    // run's first answer, 4 of 5, follows that one request. Nothing in this short run shows the limit itself.
    const recs = [remote, rl(1, 0, 200, 4, S + 20), rl(2, 100, 200, 3, S + 20), rl(3, 200, 200, 2, S + 20)];
    const r = await judgeOne('rate-window-fixed', recs);
    expect(r.violations).toBe(0);
  });
});
