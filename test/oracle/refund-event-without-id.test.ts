/**
 * WH-5 with refund payloads that carry no id of their own: the spec shows only
 * `data.refund.payment_id` ("other refund payload fields: not shown"), so a conforming service
 * may send `{payment_id, amount, status}`. Such an event counts for one refund of that payment
 * that settled to the event's status and has no event naming it. Found in review: every such
 * event was filed under the refund id '' and each refund read as having no event.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { readEnvelope } from '../../src/webhooks/envelope.ts';
import { create, endRec, judgeOne, refundReq, resetSeq, retrieve, webhook } from './fixtures.ts';

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
