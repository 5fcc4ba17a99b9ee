/**
 * WH-7: "`data.payment` is the full current Payment object, as `GET /v1/payments/{id}` would return
 * it at delivery time." A delivery (a retry, a copy, an event delivered late) whose data.payment
 * shows an earlier state than an answer had already shown before the delivery was signed is stale.
 * Only values that can only grow are compared (refunded amount, number of refunds, refunded_at
 * set, a refund's status final), and only with answers that surely ended before the signature time.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/history/index.ts';
import { create, endRec, judgeOne, pay, refundObj, resetSeq, retrieve, RUN_WALL, webhook } from './fixtures.ts';

beforeEach(() => resetSeq());

const P = 'pay_00000000-0000-4000-8000-0000000000a1';
const card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, country: 'NL' } as never;
const succeeded = { status: 'succeeded' as const, card, succeededAt: 1_700_000_001 };
const ref = (status: 'pending' | 'succeeded') => refundObj({ id: 're_1', paymentId: P, amount: 1000, status });
/** The payment after its full refund succeeded. */
const refunded = { ...succeeded, amountRefunded: 1000, refundedAt: 1_700_000_003, refunds: [ref('succeeded')] };
/** The event-time snapshot: succeeded, nothing refunded. */
const before = { ...succeeded, amountRefunded: 0, refundedAt: null, refunds: [] };

const judgeWh7 = (recs: HistoryRecord[]) => judgeOne('event-matches-type', [create({ id: P, t: 0 }), ...recs, endRec({ tEnd: 60_000 })]);
const messages = (r: { examples: { message: string }[] }) => r.examples.map((e) => e.message);

describe('WH-7: data.payment is current at delivery time', () => {
  it('fails a delivery showing nothing refunded after a GET had shown the refund succeeded', async () => {
    const r = await judgeWh7([retrieve(P, { t: 3000, p: refunded }), webhook({ seq: 50, eventId: 'evt_s', tReceived: 9000, payment: pay({ id: P, ...before }) })]);
    expect(r.status).toBe('fail');
    expect(messages(r)[0]).toMatch(/evt_s .*payment pay_\S+ with refunded amount 0, but an answer had shown 1000/);
    expect(r.examples[0].seqs).toContain(50);
  });

  it('fails a refund still pending in data.payment after a refund.succeeded event for it arrived', async () => {
    const r = await judgeWh7([
      webhook({ eventId: 'evt_r', type: 'refund.succeeded', tReceived: 3000, payment: null, refund: ref('succeeded') }),
      webhook({ eventId: 'evt_s', tReceived: 9000, payment: pay({ id: P, ...succeeded, amountRefunded: 1000, refundedAt: 1_700_000_003, refunds: [ref('pending')] }) }),
    ]);
    expect(r.status).toBe('fail');
    expect(messages(r)[0]).toMatch(/refund re_1 pending/);
  });

  it('presentation A: amount_refunded may fall (A does not say it counts succeeded refunds only), so a lower one is not stale', async () => {
    const a = { presentation: 'A' as const, wireStatus: 'SUCCEEDED', refunds: null, refundedAt: null };
    const r = await judgeWh7([
      retrieve(P, { t: 3000, p: { ...succeeded, ...a, amountRefunded: 1000 } }),
      webhook({ eventId: 'evt_s', tReceived: 9000, payment: pay({ id: P, ...succeeded, ...a, amountRefunded: 0 }) }),
    ]);
    expect(messages(r)).toEqual([]);
    // The same in presentation B fails (the first case above).
  });

  it('passes a late delivery of an older event that shows the current payment (refund included)', async () => {
    const r = await judgeWh7([retrieve(P, { t: 3000, p: refunded }), webhook({ eventId: 'evt_s', tReceived: 9000, payment: pay({ id: P, ...refunded }) })]);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('passes a snapshot signed before the GET that showed the change ended (and within the 1 s of whole-second t)', async () => {
    // Signed in the second the GET ended in, arriving just after it: no evidence the snapshot is old.
    const r = await judgeWh7([retrieve(P, { t: 8400, p: refunded }), webhook({ eventId: 'evt_s', tReceived: 8450, payment: pay({ id: P, ...before }) })]);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('reads the signature time on the server clock (Date headers): a body signed before the GET is no stale snapshot, though it arrived late', async () => {
    const AHEAD = 5000;
    // Answers with Date headers from a server 5 s ahead of us.
    const dated = [1000, 1250, 1500, 1730, 2010, 2290].map((t) => retrieve(P, { t, dur: 5, p: succeeded, date: Math.floor((RUN_WALL + t + AHEAD) / 1000) }));
    const signedAt = 3500;
    const late = webhook({ eventId: 'evt_s', tReceived: 9000, t: Math.floor((RUN_WALL + signedAt + AHEAD) / 1000), payment: pay({ id: P, ...before }) });
    const r = await judgeWh7([...dated, retrieve(P, { t: 4000, p: refunded }), late]);
    expect(messages(r)).toEqual([]);
    resetSeq();
    // The same body signed after the GET (server time) is stale.
    const dated2 = [1000, 1250, 1500, 1730, 2010, 2290].map((t) => retrieve(P, { t, dur: 5, p: succeeded, date: Math.floor((RUN_WALL + t + AHEAD) / 1000) }));
    const stale = webhook({ eventId: 'evt_s', tReceived: 9000, t: Math.floor((RUN_WALL + 8000 + AHEAD) / 1000), payment: pay({ id: P, ...before }) });
    expect((await judgeWh7([...dated2, retrieve(P, { t: 4000, p: refunded }), stale])).status).toBe('fail');
  });

  it("widens an answer by a merged shard's clock slack", async () => {
    const get = { ...retrieve(P, { t: 3000, p: refunded }), clockSlackMs: 6000 };
    const r = await judgeWh7([get, webhook({ eventId: 'evt_s', tReceived: 9000, payment: pay({ id: P, ...before }) })]);
    expect(messages(r)).toEqual([]);
  });
});
