/**
 * Refund and fault reviews (session 8): refund bodies the spec leaves open, a deployment that
 * requires the refund amount, refunds that settle late, FT-5 across the two refund paths, and
 * two refunds for one idempotent refund request (REF-7). Each case failed before its fix.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import type { ExchangeRecord, HistoryRecord } from '../../src/history/index.ts';
import { responseRecord, type ExchangeMeta } from '../../src/history/exchange-record.ts';
import { pickHeaders } from '../../src/client/transport.ts';
import { LeakScanner } from '../../src/history/leak-scanner.ts';
import { RUN_WALL, K, create, err, fault, rate, refundObj, refundReq, resetSeq, retrieve, runRec } from './fixtures.ts';

beforeEach(() => resetSeq());

let seq = 1000;
/** Fixture records carry no rate headers: not what these tests are about. */
const NOISE = new Set(['rate-headers-present']);
/** An exchange record built the way the client builds it: from the wire body. */
function wire(o: { op: ExchangeMeta['op']; t: number; dur?: number; status: number; body: unknown; sent?: ExchangeMeta['sent']; idemKey?: string; key?: string; seq?: number; group?: string }): ExchangeRecord {
  const meta: ExchangeMeta = {
    scenario: 'test',
    op: o.op,
    key: o.key ?? K.test,
    ...(o.idemKey ? { idemKey: o.idemKey } : {}),
    ...(o.group ? { group: o.group } : {}),
    sent: o.sent ?? {},
    tIntended: o.t,
    tStart: o.t,
    wall: RUN_WALL + o.t,
  };
  const picked = pickHeaders([Buffer.from('content-type'), Buffer.from('application/json')]);
  const r = responseRecord(meta, o.t + (o.dur ?? 10), { status: o.status, picked, body: JSON.stringify(o.body) }, new LeakScanner()).record;
  return { ...r, seq: o.seq ?? ++seq };
}

/** Every invariant; returns the failing ones as `id: message`. */
async function failing(records: HistoryRecord[], run = {}): Promise<string[]> {
  const recs = records[0]?.kind === 'run' ? records : [runRec(run), ...records];
  const { invariants } = await judge(recs);
  return invariants.filter((i) => (i.status === 'fail' || i.status === 'error') && !NOISE.has(i.id)).map((i) => `${i.id}: ${i.examples[0]?.message ?? i.error ?? ''}`);
}
async function statusOf(records: HistoryRecord[], ids: string[], run = {}) {
  const recs = records[0]?.kind === 'run' ? records : [runRec(run), ...records];
  const { invariants } = await judge(recs, { only: ids });
  return Object.fromEntries(invariants.map((i) => [i.id, { status: i.status, msg: i.examples[0]?.message, checked: i.checked }]));
}

/**
 * Finding: a refund answer whose id does not start `re_` and has no `object: "refund"` (the spec
 * shows neither the refund id nor the refund body) is read as a Payment when it carries
 * `created` / `created_at` or an uppercase status (src/history/exchange-record.ts isRefundBody,
 * detectPresentation). refund-accepted then reports "refund of X answered with payment rf_...".
 * Also: refund entries in a payment's `refunds` without their own `id` (spec: refund fields beyond
 * payment_id and status are not shown) are dropped by normalizeRefund, so refund-accepted says the
 * payment "lists 0 refund(s)".
 */

const P_c1 = 'pay_00000000-0000-4000-8000-0000000000c1';
const payB = (o: Record<string, unknown> = {}) => ({
  id: P_c1, object: 'payment', amount: 1000, currency: 'eur', status: 'succeeded', created: 1_700_000_000, livemode: false,
  description: null, card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, country: 'US' }, customer: null, metadata: {},
  decline_code: null, decline_message: null, redirect_url: null, refunded_at: null, succeeded_at: 1_700_000_001, failed_at: null,
  next_action: null, refunded_amount: 0, refunds: [], ...o,
});

describe('refund bodies the spec allows', () => {
  it('a Refund answer with an id not prefixed re_ and a `created` field is not a Payment (no violation expected)', async () => {
    const refundBody = { id: 'rf_7f3a', payment_id: P_c1, amount: 300, status: 'pending', created: 1_700_000_002 };
    const recs = [
      create({ id: P_c1, t: 0, sent: { amount: 1000, cardOutcome: 'succeeds' } }),
      wire({ op: 'retrieve', t: 50, status: 200, sent: { paymentId: P_c1 }, body: payB() }),
      wire({ op: 'refund', t: 100, status: 201, body: refundBody, sent: { paymentId: P_c1, amount: 300 }, idemKey: 'rk-1' }),
      wire({ op: 'retrieve', t: 400, status: 200, sent: { paymentId: P_c1 }, body: payB({ refunded_amount: 300, refunds: [{ ...refundBody, status: 'succeeded' }] }) }),
    ];
    expect(await failing(recs)).toEqual([]);
  });

  it('refund entries without their own id in `refunds` (B) are still refunds (no violation expected)', async () => {
    const recs = [
      create({ id: P_c1, t: 0, sent: { amount: 1000, cardOutcome: 'succeeds' } }),
      wire({ op: 'retrieve', t: 50, status: 200, sent: { paymentId: P_c1 }, body: payB() }),
      wire({ op: 'refund', t: 100, status: 201, body: { object: 'refund', payment_id: P_c1, status: 'pending' }, sent: { paymentId: P_c1, amount: 300 }, idemKey: 'rk-1' }),
      wire({ op: 'retrieve', t: 400, status: 200, sent: { paymentId: P_c1 }, body: payB({ refunded_amount: 300, refunds: [{ payment_id: P_c1, status: 'succeeded', amount: 300 }] }) }),
    ];
    expect(await failing(recs)).toEqual([]);
  });
});

/**
 * Finding (false fail, REF-1): the refund request body is "not shown" by the spec, so a deployment
 * that requires `amount` (no "refund the rest" default, which is paystorm's own choice in
 * src/spec/refund.ts) conforms. The refunds scenario's "full without amount" step sends `{}` as the
 * first refund of a succeeded payment; a 400 parameter_invalid (param amount) is judged by
 * refund-accepted as "first refund of succeeded payment ... was refused".
 */

const P_b1 = 'pay_00000000-0000-4000-8000-0000000000b1';

describe('a deployment that requires the refund amount', () => {
  it('a refund without amount refused 400 parameter_invalid/amount is not a REF-1 violation', async () => {
    const recs = [
      create({ id: P_b1, t: 0, sent: { amount: 2500, cardOutcome: 'succeeds' } }),
      retrieve(P_b1, { t: 50, p: { status: 'succeeded', amount: 2500 } }),
      refundReq(P_b1, { t: 100, op: 'refund_create', group: 'refund-full', sent: {}, status: 400, error: err('parameter_invalid', { param: 'amount', message: 'amount is required' }) }),
    ];
    const r = await statusOf(recs, ['refund-accepted', 'error-code-table']);
    expect(r['refund-accepted'].msg).toBeUndefined();
    expect(r['refund-accepted'].status).not.toBe('fail');
  });

  it('the same refusal of a refund without amount on a failed payment is not a REF-5 violation (400 before the state check)', async () => {
    const recs = [
      create({ id: P_b1, t: 0, sent: { amount: 2500, cardOutcome: 'do_not_honor' } }),
      retrieve(P_b1, { t: 50, p: { status: 'failed', amount: 2500, failureCode: 'do_not_honor' } }),
      refundReq(P_b1, { t: 100, op: 'refund_create', group: 'refund-not-succeeded', sent: {}, status: 400, error: err('parameter_invalid', { param: 'amount', message: 'amount is required' }) }),
    ];
    const r = await statusOf(recs, ['refund-requires-succeeded']);
    expect(r['refund-requires-succeeded'].msg).toBeUndefined();
  });
});

/**
 * Finding (false fail, REF-1 refund-settles): the spec bounds no refund's time in pending (the
 * Refund resource: "starts as pending and moves to succeeded or failed"; "Usually within seconds"
 * is said of payments only, SM-6). refund-settles applies the payments' settle bound to refunds, so
 * a refund that settles after 40 s on a real target (bound 30 s) fails the run although it did settle.
 */

const P_b7 = 'pay_00000000-0000-4000-8000-0000000000b7';

describe('a refund that settles later than payments do', () => {
  it('pending at 31 s, succeeded at 40 s, bound 30 s: no violation', async () => {
    const recs = [
      create({ id: P_b7, t: 0, sent: { amount: 1000 } }),
      retrieve(P_b7, { t: 50, p: { status: 'succeeded' } }),
      refundReq(P_b7, { t: 100, sent: { amount: 300 }, r: { id: 're_1', amount: 300, status: 'pending' } }),
      retrieve(P_b7, { t: 31_500, p: { status: 'succeeded', refunds: [refundObj({ id: 're_1', paymentId: P_b7, amount: 300, status: 'pending' })] } }),
      retrieve(P_b7, { t: 40_000, p: { status: 'succeeded', amountRefunded: 300, refunds: [refundObj({ id: 're_1', paymentId: P_b7, amount: 300, status: 'succeeded' })] } }),
    ];
    const r = await statusOf(recs, ['refund-settles'], { settleBoundMs: 30_000, target: { url: 'https://psp.example', embedded: false, presentation: 'B' } });
    expect(r['refund-settles'].msg).toBeUndefined();
  });
});

/**
 * Suspicion (false fail, FT-5): behaviour-under-faults compares refund requests by their ledger
 * digest `refund:<payment>:<amount>`, which is path-blind; lib/idempotency.ts treats a same-key
 * refund on the OTHER path as neither same nor different body (409 is conforming there: the bodies
 * differ by payment_id). During an upstream fault, FT-5 calls that 409 a violation.
 */

const P_c9 = 'pay_00000000-0000-4000-8000-0000000000c9';

describe('FT-5 and the two refund paths', () => {
  it('same key, same refund on the other path answered 409 during an upstream fault', async () => {
    const recs = [
      create({ id: P_c9, t: 0, sent: { amount: 1000 } }),
      retrieve(P_c9, { t: 50, p: { status: 'succeeded' } }),
      refundReq(P_c9, { t: 100, idemKey: 'xk', sent: { amount: 300 }, r: { id: 're_1', amount: 300 } }),
      refundReq(P_c9, { t: 1500, idemKey: 'xk', op: 'refund_create', sent: { amount: 300 }, status: 409, error: err('idempotency_key_reused'), rate: rate(1_700_000_060, 3, 100) }),
      fault({ tStart: 1000, tEnd: 2000 }),
    ];
    const r = await statusOf(recs, ['behaviour-under-faults', 'refund-idempotency']);
    expect(r['refund-idempotency'].status).not.toBe('fail');
    expect(r['behaviour-under-faults'].msg, r['behaviour-under-faults'].msg).toBeUndefined();
  });
});

/**
 * Finding (false pass, REF-7 / IDEM-6 / IDEM-3 for refunds, FT-3's refund analogue): a refund request
 * whose first attempt timed out and whose retry (same Idempotency-Key) was answered 201 leaves TWO
 * refunds on the payment; or a same-key replay answered with the first refund's id while the service
 * made a second one. Only refund ids returned to the client are compared (checkSingleObject), and
 * refund-accepted only checks that the payment lists at least one refund per accepted key: no
 * invariant bounds the refunds a payment shows by the logical refund requests that could have made them.
 */

const P_d1 = 'pay_00000000-0000-4000-8000-0000000000d1';
const card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 };
const base = () => [create({ id: P_d1, t: 0, sent: { amount: 1000, cardOutcome: 'succeeds' } }), retrieve(P_d1, { t: 50, p: { status: 'succeeded', card } })];
const shows2 = (t: number) =>
  retrieve(P_d1, {
    t,
    p: { status: 'succeeded', card, amountRefunded: 600, refunds: [refundObj({ id: 're_1', paymentId: P_d1, amount: 300, status: 'succeeded' }), refundObj({ id: 're_2', paymentId: P_d1, amount: 300, status: 'succeeded' })] },
  });

describe('control', () => {
  it('one refund shown: clean', async () => {
    const recs = [...base(), refundReq(P_d1, { t: 100, status: 201, idemKey: 'rk-1', sent: { amount: 300 }, r: { id: 're_1', amount: 300, status: 'pending' } }), retrieve(P_d1, { t: 2000, p: { status: 'succeeded', card, amountRefunded: 300, refunds: [refundObj({ id: 're_1', paymentId: P_d1, amount: 300, status: 'succeeded' })] } })];
    expect(await failing(recs)).toEqual([]);
  });
});

describe('two refunds for one idempotent refund request', () => {
  it('time-out, then a same-key retry answered 201: the payment shows two refunds of 300 (expected a violation)', async () => {
    const recs = [
      ...base(),
      refundReq(P_d1, { t: 100, dur: 1000, status: 0, idemKey: 'rk-1', attempt: 0, sent: { amount: 300 } }),
      refundReq(P_d1, { t: 1200, status: 201, idemKey: 'rk-1', attempt: 1, sent: { amount: 300 }, r: { id: 're_2', amount: 300, status: 'pending' } }),
      shows2(2000),
    ];
    expect(await failing(recs)).not.toEqual([]);
  });

  it('a same-key replay answered with the first refund while a second one was made (expected a violation)', async () => {
    const recs = [
      ...base(),
      refundReq(P_d1, { t: 100, status: 201, idemKey: 'rk-1', sent: { amount: 300 }, r: { id: 're_1', amount: 300, status: 'pending' } }),
      refundReq(P_d1, { t: 200, status: 201, idemKey: 'rk-1', sent: { amount: 300 }, r: { id: 're_1', amount: 300, status: 'pending' } }),
      shows2(2000),
    ];
    expect(await failing(recs)).not.toEqual([]);
  });
});

describe('a refusal made no refund', () => {
  it('a refund request refused 422 still counts as one that may have made a refund: a ghost beside it passes', async () => {
    const recs = [
      ...base(),
      refundReq(P_d1, { t: 100, status: 201, idemKey: 'rk-1', sent: { amount: 300 }, r: { id: 're_1', amount: 300, status: 'pending' } }),
      refundReq(P_d1, { t: 300, status: 422, idemKey: 'rk-2', sent: { amount: 300 }, error: { type: 'invalid_request_error', code: 'action_not_allowed', message: 'Refund validation failed [payment_locked]: busy', param: null, decline_code: null, doc_url: null, request_id: 'req_x', missing: [] } }),
      shows2(2000),
    ];
    expect(await failing(recs)).not.toEqual([]);
  });
});
