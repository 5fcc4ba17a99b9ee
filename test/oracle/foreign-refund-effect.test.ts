/**
 * SEC-1 / AUTH-8: a refund of another merchant's (or mode's) payment answered with something that
 * says nothing about isolation (5xx, no answer, 429) or even with the right 404, yet carried out.
 * The answer alone cannot be judged; the payment can: a refund (an entry in `refunds`, a refund
 * id, or a larger refunded total) seen after the foreign request began, that no refund request of
 * a key allowed to refund the payment can account for, was made by the foreign one. A foreign
 * refund with no such effect is a plain server error (judged by server-errors), not a breach.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/history/index.ts';
import { K, create, err, fault, judgeOne, refundObj, refundReq, resetSeq, retrieve, webhook, pay } from './fixtures.ts';

const P = 'pay_00000000-0000-4000-8000-0000000000e1';
const SUCCEEDED = { status: 'succeeded' as const, wireStatus: 'succeeded', succeededAt: 1_700_000_001 };
/** The owner (merchant m2) makes a succeeded payment of 1000. */
const made = () => [create({ key: K.other, id: P, t: 0, p: { ...SUCCEEDED } }), retrieve(P, { key: K.other, t: 20, p: { ...SUCCEEDED } })];
const shows = (refunds: number, total: number, o: { t: number; seq?: number; key?: string; presentationA?: boolean }) =>
  retrieve(P, {
    key: o.key ?? K.other,
    t: o.t,
    ...(o.seq ? { seq: o.seq } : {}),
    p: {
      ...SUCCEEDED,
      amountRefunded: total,
      refunds: o.presentationA ? null : Array.from({ length: refunds }, (_, i) => refundObj({ id: `re_${i + 1}`, paymentId: P, amount: 100, status: 'succeeded' })),
    },
  });
/** Merchant m1's key refunds m2's payment and gets a 500. */
const foreign500 = (t: number, o: Parameters<typeof refundReq>[1] = {}) => refundReq(P, { key: K.test, t, seq: 40, status: 500, error: err('internal_error'), sent: { amount: 100 }, ...o });

beforeEach(() => resetSeq());

const judged = (recs: HistoryRecord[], id = 'merchant-isolation') => judgeOne(id, recs);

describe('SEC-1: a foreign refund answered 5xx (or not answered) that refunded the payment', () => {
  it('FALSE PASS: a 500 to the foreign refund, then the owner sees a refund none of its requests made', async () => {
    const r = await judged([...made(), foreign500(100), shows(1, 100, { t: 300, seq: 50 })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual(expect.arrayContaining([40, 50]));
    expect(r.examples[0].message).toMatch(/500/);
  });

  it('FALSE PASS: the same shown only by the refunded total (presentation A has no refunds array)', async () => {
    const r = await judged([...made(), foreign500(100), shows(0, 100, { t: 300, presentationA: true })]);
    expect(r.status).toBe('fail');
  });

  it('FALSE PASS: a foreign refund that timed out (no answer) and refunded', async () => {
    const r = await judged([...made(), foreign500(100, { status: 0, error: null, failure: 'timeout', dur: 10_000 }), shows(1, 100, { t: 300 })]);
    expect(r.status).toBe('fail');
  });

  it('FALSE PASS: answered 404 resource_missing, yet refunded', async () => {
    const r = await judged([...made(), foreign500(100, { status: 404, error: err('resource_missing') }), shows(1, 100, { t: 300 })]);
    expect(r.status).toBe('fail');
  });

  it('FALSE PASS: a refund.succeeded event for a refund id no request of the owner got', async () => {
    const event = webhook({ tReceived: 400, type: 'refund.succeeded', payment: null, refund: refundObj({ id: 're_foreign', paymentId: P, status: 'succeeded' }) });
    const r = await judged([...made(), foreign500(100), event]);
    expect(r.status).toBe('fail');
  });

  it('FALSE PASS: a webhook snapshot of the payment (data.payment) showing a refund no request of the owner made', async () => {
    const snap = webhook({ tReceived: 400, type: 'payment.succeeded', payment: pay({ id: P, ...SUCCEEDED, amountRefunded: 100, refunds: [refundObj({ id: 're_x', paymentId: P, status: 'succeeded' })] }) });
    expect((await judged([...made(), foreign500(100), snap])).status).toBe('fail');
  });

  it('FALSE PASS: the owner refunded once (100), the payment shows 200 refunded after the foreign 500', async () => {
    const own = refundReq(P, { key: K.other, t: 60, sent: { amount: 100 }, r: { id: 're_own', amount: 100 } });
    const r = await judged([...made(), own, foreign500(100), shows(0, 200, { t: 300, presentationA: true })]);
    expect(r.status).toBe('fail');
  });

  it('FALSE PASS: an owner refund sent after the look cannot account for what the look showed', async () => {
    const later = refundReq(P, { key: K.other, t: 500, sent: { amount: 100 } });
    const r = await judged([...made(), foreign500(100), shows(1, 100, { t: 300 }), later]);
    expect(r.status).toBe('fail');
  });

  it('AUTH-8 alike: a live key refunding a test payment, answered 503, that refunded it', async () => {
    const r = await judged(
      [create({ key: K.test, id: P, t: 0, p: { ...SUCCEEDED } }), refundReq(P, { key: K.live, t: 100, status: 503, error: err('service_unavailable'), sent: { amount: 100 } }), shows(1, 100, { t: 300, key: K.test })],
      'mode-isolation',
    );
    expect(r.status).toBe('fail');
  });
});

describe('no false fail: a foreign refund answered 5xx whose effect something else accounts for', () => {
  it('no effect: a plain server error, one isolation check that passes', async () => {
    const r = await judged([...made(), foreign500(100), shows(0, 0, { t: 300 })]);
    expect(r.status).toBe('pass');
    expect(r.checked).toBeGreaterThan(0);
  });

  it('a foreign 500 and nothing looked at afterwards: not exercised', async () => {
    const r = await judged([...made(), foreign500(100)]);
    expect(r.status).toBe('not-exercised');
  });

  it('the owner refunded at the same time (201): its refund is the one shown', async () => {
    const own = refundReq(P, { key: K.other, t: 95, dur: 30, sent: { amount: 100 }, r: { id: 're_1', amount: 100 } });
    expect((await judged([...made(), own, foreign500(100), shows(1, 100, { t: 300 })])).status).toBe('pass');
  });

  it("the owner's own refund got a 503 or no answer under a fault: it may have been carried out", async () => {
    for (const status of [503, 0]) {
      resetSeq();
      const own = refundReq(P, { key: K.other, t: 1100, status, error: status ? err('service_unavailable') : null, sent: { amount: 100 } });
      const r = await judged([...made(), fault({ tStart: 1000, tEnd: 2000 }), own, foreign500(1200), shows(1, 100, { t: 3000 })]);
      expect(r.status, `owner answered ${status}`).toBe('pass');
    }
  });

  it("the owner's refund was refused 422 inside a fault window: not taken as proof it did nothing", async () => {
    const own = refundReq(P, { key: K.other, t: 1100, status: 422, error: err('action_not_allowed'), sent: { amount: 100 } });
    expect((await judged([...made(), fault({ tStart: 1000, tEnd: 2000 }), own, foreign500(1200), shows(1, 100, { t: 3000 })])).status).toBe('pass');
  });

  it("the owner's refund refused 422 may have left a failed entry (each call adds one), though it moved no money", async () => {
    const own = refundReq(P, { key: K.other, t: 60, status: 422, error: err('action_not_allowed'), sent: { amount: 5000 } });
    const failedEntry = retrieve(P, { key: K.other, t: 300, p: { ...SUCCEEDED, refunds: [refundObj({ id: 're_f', paymentId: P, status: 'failed' })] } });
    expect((await judged([...made(), own, foreign500(100), failedEntry])).status).toBe('pass');
    resetSeq();
    expect((await judged([...made(), own, foreign500(100), shows(1, 100, { t: 300 })])).status, 'but money moved').toBe('fail');
  });

  it('an owner refund without an amount may refund everything that is shown', async () => {
    const own = refundReq(P, { key: K.other, t: 60, sent: {} });
    expect((await judged([...made(), own, foreign500(100), shows(0, 1000, { t: 300, presentationA: true })])).status).toBe('pass');
  });

  it("the merchant's other key (another mode) refunding is not the foreign merchant: SEC-1 does not blame m1", async () => {
    // m1's test key owns the payment; m1's live key refunds it (an AUTH-8 matter) and gets a 500; m2 gets a 500 too.
    const mine = [create({ key: K.test, id: P, t: 0, p: { ...SUCCEEDED } })];
    const liveRefund = refundReq(P, { key: K.live, t: 90, status: 500, error: err('internal_error'), sent: { amount: 100 } });
    const m2Refund = refundReq(P, { key: K.other, t: 100, status: 500, error: err('internal_error'), sent: { amount: 100 } });
    const r = await judged([...mine, liveRefund, m2Refund, shows(1, 100, { t: 300, key: K.test })]);
    expect(r.status).not.toBe('fail');
  });

  it('a refund seen before the foreign request began is not its doing', async () => {
    const r = await judged([...made(), shows(1, 100, { t: 50 }), foreign500(100)]);
    expect(r.status).not.toBe('fail');
  });

  it('a refund request naming no payment (a probe) that was not refused may have made it', async () => {
    const probe = refundReq('', { op: 'refund_create', key: K.other, t: 60, status: 500, error: err('internal_error'), sent: { paymentId: undefined, path: '/v1/refunds', method: 'POST' } });
    expect((await judged([...made(), probe, foreign500(100), shows(1, 100, { t: 300 })])).status).not.toBe('fail');
  });

  it('a webhook snapshot without a refund is no look after the foreign request: it may have been taken before it', async () => {
    const snap = webhook({ tReceived: 400, type: 'payment.succeeded', payment: pay({ id: P, ...SUCCEEDED, amountRefunded: 0, refunds: [] }) });
    expect((await judged([...made(), foreign500(100), snap])).status).toBe('not-exercised');
  });
});
