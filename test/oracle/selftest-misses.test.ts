/**
 * Seeded bugs the selftest once missed (RL-8, SM-4, REF-7, WH-10, TEST-2): each check judges
 * a history that breaks its rule as a fail, and one that keeps it as a pass.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, err, ex, judgeOne, K, rate, refundReq, resetSeq, retrieve, webhook, pay } from './fixtures.ts';

beforeEach(() => resetSeq());

const S = 1_700_000_000;
const rl = (seq: number, t: number, status: number, reset: number, retryAfter: number | null) =>
  ex({ seq, t, op: 'retrieve', status, rate: rate(reset, status === 429 ? 0 : 3), ...(status === 429 ? { retryAfter, error: err('rate_limit_exceeded') } : {}), sent: { paymentId: 'pay_x' } });

describe('RL-8: Retry-After 0 is not hidden by a second of slack', () => {
  it('Retry-After 0, then a request 60 ms later refused in the same window: fail', async () => {
    const r = await judgeOne('retry-after-honest', [rl(1, 1000, 429, S + 3, 0), rl(2, 1070, 429, S + 3, 0)]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/refused again in the same window/);
  });
  it('Retry-After 2 honoured: the request after it is in a new window: pass', async () => {
    const r = await judgeOne('retry-after-honest', [rl(1, 1000, 429, S + 3, 2), rl(2, 3070, 200, S + 6, null)]);
    expect(r.status).toBe('pass');
  });
});

describe('SM-4: an abandoned challenge that never expires, judged only with a declared time-out', () => {
  const P = 'pay_00000000-0000-4000-8000-0000000000c1';
  const ra = { status: 'requires_action' as const, wireStatus: 'requires_action', nextAction: { type: 'redirect', reason: null, redirectUrl: 'http://x/3ds' } };
  const history = (lastAt: number) => [
    create({ id: P, t: 0, p: { status: 'pending', wireStatus: 'pending' }, sent: { cardOutcome: 'three_ds_challenge' } }),
    retrieve(P, { t: 1000, p: ra }),
    retrieve(P, { seq: 50, t: lastAt, p: ra }),
  ];
  it('still requires_action past time-out + settle bound: fail', async () => {
    const r = await judgeOne('three-ds-outcome', history(1000 + 15_000 + 5_000 + 500), { challengeTimeoutMs: 15_000, settleBoundMs: 5_000 });
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/should have expired/);
  });
  it('requires_action within the time-out + settle bound: not a violation', async () => {
    const r = await judgeOne('three-ds-outcome', history(1000 + 15_000 + 4_000), { challengeTimeoutMs: 15_000, settleBoundMs: 5_000 });
    expect(r.status).not.toBe('fail');
  });
  it('time-out unknown: never judged, and the reason says so', async () => {
    const r = await judgeOne('three-ds-outcome', history(10 * 60_000), { settleBoundMs: 5_000 });
    expect(r.status).toBe('not-exercised');
    expect(r.reason).toMatch(/time-out is unknown/);
  });
  it('an abandoned challenge that expired: pass', async () => {
    const r = await judgeOne('three-ds-outcome', [...history(5_000), retrieve(P, { t: 17_000, p: { status: 'expired', wireStatus: 'expired', nextAction: null } })], { challengeTimeoutMs: 15_000, settleBoundMs: 5_000 });
    expect(r.status).toBe('pass');
  });
});

describe('REF-7: one key and one refund on both refund paths', () => {
  const P = 'pay_00000000-0000-4000-8000-0000000000d1';
  const pair = (secondId: string) => [
    refundReq(P, { seq: 1, t: 0, idemKey: 'k1', bodyDigest: 'a', sent: { amount: 300 }, r: { id: 're_1', amount: 300 } }),
    refundReq(P, { seq: 2, t: 100, op: 'refund_create', idemKey: 'k1', bodyDigest: 'b', sent: { amount: 300 }, r: { id: secondId, amount: 300 } }),
  ];
  it('a second refund on the other path: fail', async () => {
    const r = await judgeOne('refund-idempotency', pair('re_2'));
    expect(r.status).toBe('fail');
    expect(r.examples.some((e) => /both refund paths are one operation/.test(e.message) || /2 objects/.test(e.message))).toBe(true);
  });
  it('the other path replays the same refund: pass', async () => {
    const r = await judgeOne('refund-idempotency', pair('re_1'));
    expect(r.status).toBe('pass');
  });
  it('the other path answers 409 (its body differs literally: payment_id): allowed, no second refund was made', async () => {
    // The spec names both paths for the refund operation but shows neither body; "same key,
    // different body (any field): 409" is a conforming reading, so only a second refund fails.
    const r = await judgeOne('refund-idempotency', [
      pair('re_1')[0],
      refundReq(P, { seq: 2, t: 100, op: 'refund_create', idemKey: 'k1', bodyDigest: 'b', status: 409, error: err('idempotency_key_reused'), sent: { amount: 300 } }),
    ]);
    expect(r.status).not.toBe('fail');
  });
});

describe('WH-10: events reach the endpoint of their mode', () => {
  const endpoints = [
    { path: '/webhooks/test', mode: 'test' as const },
    { path: '/webhooks/live', mode: 'live' as const },
  ];
  const run = { webhooks: { receiverUrl: 'http://127.0.0.1:2', wired: true, failShare: 0, ackTimeoutMs: 10_000, endpoints } };
  const P = 'pay_00000000-0000-4000-8000-0000000000e1';
  it('a live event at the test endpoint: fail', async () => {
    const r = await judgeOne('test-events-test-endpoints', [create({ id: P, key: K.live, p: { livemode: true } }), webhook({ path: '/webhooks/test', livemode: true, payment: pay({ id: P, status: 'succeeded', livemode: true }) })], run);
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/live-mode event .* test endpoint/);
  });
  it('a live event at the live endpoint and a test one at the test endpoint: pass', async () => {
    const r = await judgeOne(
      'test-events-test-endpoints',
      [
        create({ id: P, key: K.live, p: { livemode: true } }),
        webhook({ path: '/webhooks/live', livemode: true, payment: pay({ id: P, status: 'succeeded', livemode: true }) }),
        webhook({ path: '/webhooks/test', eventId: 'evt_2', livemode: false }),
      ],
      run,
    );
    expect(r.status).toBe('pass');
  });
});

describe('TEST-2: an Amex card outside the cards file', () => {
  const cardMeta = { expMonth: 12, expYear: 2039, cvcLength: 4, holderName: 'Ada Lovelace' };
  it('refused over its 4-digit CVC: fail', async () => {
    const r = await judgeOne('sandbox-accepts-card-details', [create({ seq: 3, status: 400, error: err('parameter_invalid', { param: 'card.cvc' }), sent: { cardBrand: 'amex', cardMeta } })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([3]);
  });
  it('refused over the number (a sandbox that does not know it) or accepted: pass', async () => {
    const r = await judgeOne('sandbox-accepts-card-details', [
      create({ status: 422, error: err('card_declined', { decline_code: 'invalid_number', param: 'card.number' }), sent: { cardBrand: 'amex', cardMeta } }),
      create({ sent: { cardBrand: 'amex', cardMeta } }),
    ]);
    expect(r.status).toBe('pass');
  });
});
