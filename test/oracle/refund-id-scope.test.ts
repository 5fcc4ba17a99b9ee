/**
 * A false fail (REF-1/REF-3/REF-4), fixed: the ledger keys refunds by id alone (src/oracle/ledger.ts
 * refunds / refundSpans). The spec does not show refund ids at all, so ids unique only within their
 * payment (say a sequence number) are not ruled out; then refund "1" of one payment succeeded and
 * refund "1" of another seen pending later reads as one refund going succeeded -> pending.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import { create, endRec, refundObj, refundReq, resetSeq, retrieve, runRec, webhook } from './fixtures.ts';

async function statusOf(records: HistoryRecord[], ids: string[]) {
  const { invariants } = await judge([runRec(), ...records], { only: ids });
  return Object.fromEntries(invariants.map((i) => [i.id, { status: i.status, msg: i.examples[0]?.message }]));
}

beforeEach(() => resetSeq());
const P1 = 'pay_00000000-0000-4000-8000-0000000000e1';
const P2 = 'pay_00000000-0000-4000-8000-0000000000e2';

describe('refund ids scoped to their payment', () => {
  it('refund "1" of two payments are two refunds', async () => {
    const recs = [
      create({ id: P1, t: 0, sent: { amount: 1000 } }),
      create({ id: P2, t: 0, sent: { amount: 1000 } }),
      retrieve(P1, { t: 50, p: { id: P1, status: 'succeeded' } }),
      retrieve(P2, { t: 50, p: { id: P2, status: 'succeeded' } }),
      refundReq(P1, { t: 100, sent: { amount: 600 }, r: { id: '1', amount: 600, status: 'pending' } }),
      retrieve(P1, { t: 300, p: { id: P1, status: 'succeeded', amountRefunded: 600, refunds: [refundObj({ id: '1', paymentId: P1, amount: 600, status: 'succeeded' })] } }),
      refundReq(P2, { t: 400, sent: { amount: 600 }, r: { id: '1', amount: 600, status: 'pending' } }),
      retrieve(P2, { t: 500, p: { id: P2, status: 'succeeded', amountRefunded: 0, refunds: [refundObj({ id: '1', paymentId: P2, amount: 600, status: 'pending' })] } }),
      retrieve(P2, { t: 600, p: { id: P2, status: 'succeeded', amountRefunded: 600, refunds: [refundObj({ id: '1', paymentId: P2, amount: 600, status: 'succeeded' })] } }),
    ];
    const r = await statusOf(recs, ['refund-accepted', 'refunds-within-amount', 'over-refund-refused', 'refund-settles']);
    for (const [id, v] of Object.entries(r)) expect(v.status, `${id}: ${v.msg}`).not.toBe('fail');
  });

  it('refund "1" of two payments, each with its own refund.succeeded event: WH-5 finds each event', async () => {
    const recs = [
      create({ id: P1, t: 0, sent: { amount: 1000 } }),
      create({ id: P2, t: 0, sent: { amount: 1000 } }),
      refundReq(P1, { t: 100, sent: { amount: 600 }, r: { id: '1', amount: 600, status: 'succeeded' } }),
      refundReq(P2, { t: 200, sent: { amount: 600 }, r: { id: '1', amount: 600, status: 'succeeded' } }),
      webhook({ eventId: 'evt_a', tReceived: 500, type: 'refund.succeeded', payment: null, refund: refundObj({ id: '1', paymentId: P2, amount: 600, status: 'succeeded' }) }),
      webhook({ eventId: 'evt_b', tReceived: 600, type: 'refund.succeeded', payment: null, refund: refundObj({ id: '1', paymentId: P1, amount: 600, status: 'succeeded' }) }),
      endRec({ tEnd: 60_000 }),
    ];
    const r = await statusOf(recs, ['terminal-refund-event', 'refund-accepted']);
    for (const [id, v] of Object.entries(r)) expect(v.status, `${id}: ${v.msg}`).not.toBe('fail');
    expect(r['terminal-refund-event'].status).toBe('pass');
  });
});
