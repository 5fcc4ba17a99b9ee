/**
 * WH-5 with refund payloads that carry no id of their own: the spec shows only
 * `data.refund.payment_id` ("other refund payload fields: not shown"), so a conforming service
 * may send `{payment_id, amount, status}`. Such an event counts for one refund of that payment
 * that settled to the event's status and has no event naming it. Found in review: every such
 * event was filed under the refund id '' and each refund read as having no event.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { readEnvelope } from '../../src/webhooks/envelope.ts';
import { create, endRec, judgeOne, refundReq, resetSeq, retrieve, webhook, withPagesOnDisk } from './fixtures.ts';

beforeEach(() => resetSeq());

const P = 'pay_00000000-0000-4000-8000-0000000000f1';
const event = (eventId: string) => {
  const env = readEnvelope({ id: eventId, type: 'refund.succeeded', created_at: 1_700_000_002, livemode: false, data: { refund: { payment_id: P, amount: 100, status: 'succeeded' } } });
  return webhook({ tReceived: 1000, type: 'refund.succeeded', eventId, payment: null, refund: env.refund, envelopeProblems: env.problems });
};
const refunds = (ids: string[]) => [create({ id: P, p: { status: 'succeeded' } }), retrieve(P, { t: 50, p: { status: 'succeeded' } }), ...ids.map((id, i) => refundReq(P, { t: 100 + i, r: { id, status: 'succeeded' } }))];

describe('WH-5 (terminal-refund-event): refund payloads without their own id', () => {
  it('the payload reads as a refund of the payment with no id and no made-up amount', () => {
    const env = readEnvelope({ id: 'evt_1', type: 'refund.succeeded', created_at: 1_700_000_002, livemode: false, data: { refund: { payment_id: P, status: 'succeeded' } } });
    expect(env.refund).toMatchObject({ id: '', paymentId: P, status: 'succeeded', amount: null });
    expect(env.problems).toEqual([]);
  });

  it('one id-less event per settled refund passes', async () => {
    const r = await judgeOne('terminal-refund-event', [...refunds(['re_1', 're_2']), event('evt_1'), event('evt_2'), endRec({ tEnd: 60_000 })]);
    expect(r.examples.map((e) => e.message)).toEqual([]);
    expect(r.checked).toBe(2);
  });

  it('a retried delivery of the same event counts once: two refunds, one event, one violation', async () => {
    const r = await judgeOne('terminal-refund-event', [...refunds(['re_1', 're_2']), event('evt_1'), event('evt_1'), endRec({ tEnd: 60_000 })]);
    expect(r.violations).toBe(1);
  });

  it('an id-less refund is no refund to the ledger: one refund is one check, not two (no made-up refund "")', async () => {
    const r = await judgeOne('terminal-refund-event', [...refunds(['re_1']), event('evt_1'), endRec({ tEnd: 60_000 })]);
    expect(r.checked).toBe(1);
    expect(r.violations).toBe(0);
  });
});

describe('WH-5 (terminal-refund-event): events noted by refund id in paged columns', () => {
  const P2 = 'pay_00000000-0000-4000-8000-0000000000f2';
  const named = (id: string, paymentId: string, eventId: string, type: 'refund.succeeded' | 'refund.failed' = 'refund.succeeded') => {
    const env = readEnvelope({ id: eventId, type, created_at: 1_700_000_002, livemode: false, data: { refund: { id, payment_id: paymentId, amount: 100, status: type === 'refund.succeeded' ? 'succeeded' : 'failed' } } });
    return webhook({ tReceived: 2000, type, eventId, payment: null, refund: env.refund, envelopeProblems: env.problems });
  };
  const history = () => {
    resetSeq();
    const ids = Array.from({ length: 12 }, (_, i) => `re_${i}`);
    return [
      ...refunds(ids),
      // Every refund's event but re_3's; re_5's first says another payment, then the right one comes; re_7's only says another.
      ...ids.filter((id) => id !== 're_3' && id !== 're_5' && id !== 're_7').map((id, i) => named(id, P, `evt_${i}`)),
      named('re_5', P2, 'evt_5x'),
      named('re_5', P, 'evt_5'),
      named('re_7', P2, 'evt_7x'),
      // A second delivery of one event, and an event of the other type: neither stands for a missing one.
      named('re_0', P, 'evt_0'),
      named('re_3', P, 'evt_3f', 'refund.failed'),
      endRec({ tEnd: 60_000 }),
    ];
  };

  it('finds each refund\'s event by id, the one that names its payment first', async () => {
    const r = await judgeOne('terminal-refund-event', history());
    expect(r.checked).toBe(12);
    expect(r.examples.map((e) => e.message).sort()).toEqual([
      `refund re_3 of ${P} was seen succeeded but no refund.succeeded event arrived by the end of the run`,
      // Its one event names another payment, which makes re_7 of that payment a refund of its own to the ledger.
      `refund re_7 of ${P} was seen succeeded but no refund.succeeded event arrived by the end of the run`,
    ]);
  });

  it('gives the same verdict with the notes on pages of two rows on disk', async () => {
    const want = await judgeOne('terminal-refund-event', history());
    expect(await withPagesOnDisk(() => judgeOne('terminal-refund-event', history()))).toEqual(want);
  });
});
