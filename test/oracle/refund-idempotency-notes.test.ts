// REF-7's own checks, whose notes are now columns by the ledger's rows: a payment listing more
// refunds than distinct (key, Idempotency-Key) refund requests were sent for it, and the same refund
// under one Idempotency-Key on the other path making a second refund. Judged again with every
// column on pages of two rows on disk.
import { describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/history/index.ts';
import { create, err, judgeOne, refundObj, refundReq, resetSeq, retrieve, withPagesOnDisk } from './fixtures.ts';

const PAY = (i: number) => `pay_r${i}`;

function history(): HistoryRecord[] {
  resetSeq();
  const recs: HistoryRecord[] = [];
  let t = 0;
  const at = () => (t += 50);
  // Filler payments, refunded once each and read back: rows enough for several pages.
  for (let i = 10; i < 30; i++) {
    recs.push(create({ id: PAY(i), t: at(), p: { status: 'succeeded' } }));
    recs.push(refundReq(PAY(i), { t: at(), idemKey: `f-${i}`, sent: { amount: 100 }, r: { id: `re_f${i}` } }));
    recs.push(retrieve(PAY(i), { t: at(), p: { status: 'succeeded', refunds: [refundObj({ id: `re_f${i}`, paymentId: PAY(i) })] } }));
  }
  // Payment 1: one refund sent twice under one key (a replay), yet two refunds listed.
  recs.push(create({ id: PAY(1), t: at(), p: { status: 'succeeded' } }));
  recs.push(refundReq(PAY(1), { t: at(), idemKey: 'same', sent: { amount: 100 }, r: { id: 're_1a' } }));
  recs.push(refundReq(PAY(1), { t: at(), idemKey: 'same', sent: { amount: 100 }, r: { id: 're_1a' } }));
  recs.push(retrieve(PAY(1), { t: at(), p: { status: 'succeeded', refunds: [refundObj({ id: 're_1a', paymentId: PAY(1) }), refundObj({ id: 're_1b', paymentId: PAY(1) })] } }));
  // Payment 2: two distinct keys, two refunds listed: as it should be.
  recs.push(create({ id: PAY(2), t: at(), p: { status: 'succeeded' } }));
  recs.push(refundReq(PAY(2), { t: at(), idemKey: 'k1', sent: { amount: 100 }, r: { id: 're_2a' } }));
  recs.push(refundReq(PAY(2), { t: at(), idemKey: 'k2', sent: { amount: 100 }, r: { id: 're_2b' } }));
  recs.push(retrieve(PAY(2), { t: at(), p: { status: 'succeeded', refunds: [refundObj({ id: 're_2a', paymentId: PAY(2) }), refundObj({ id: 're_2b', paymentId: PAY(2) })] } }));
  // Payment 3: the same refund under one key on the payment path, then on the top-level path, made a second refund.
  recs.push(create({ id: PAY(3), t: at(), p: { status: 'succeeded' } }));
  recs.push(refundReq(PAY(3), { t: at(), idemKey: 'cross', sent: { amount: 300 }, r: { id: 're_3a' } }));
  recs.push(refundReq(PAY(3), { op: 'refund_create', t: at(), idemKey: 'cross', sent: { amount: 300 }, r: { id: 're_3b' } }));
  // Payment 4: the same key on the other path with another amount: refused 409, not a replay to judge.
  recs.push(create({ id: PAY(4), t: at(), p: { status: 'succeeded' } }));
  recs.push(refundReq(PAY(4), { t: at(), idemKey: 'cross4', sent: { amount: 300 }, r: { id: 're_4a' } }));
  recs.push(refundReq(PAY(4), { op: 'refund_create', t: at(), idemKey: 'cross4', sent: { amount: 200 }, status: 409, error: err('idempotency_key_reused') }));
  return recs;
}

describe('refund-idempotency', () => {
  it('fails a payment listing more refunds than distinct requests, and a second refund on the other path under one key', async () => {
    const r = await judgeOne('refund-idempotency', history());
    const messages = r.examples.map((e) => e.message);
    expect(messages.some((m) => m.startsWith(`payment ${PAY(1)} lists 2 refunds, but only 1 refund request(s)`))).toBe(true);
    expect(messages.some((m) => m.includes(`created refund re_3b after re_3a on the other path`) && m.includes(`payment ${PAY(3)}, amount 300`))).toBe(true);
    // IDEM-5 over the refund scope sees payment 3's two refunds under one key too.
    expect(messages).toContain('2 objects were created under one Idempotency-Key: re_3a, re_3b');
    expect(messages.some((m) => m.includes(PAY(2)) || m.includes(PAY(4)) || m.includes('re_4'))).toBe(false);
    expect(r.violations).toBe(3);
  });

  it('gives the same verdict with its notes on pages of two rows on disk', async () => {
    const want = await judgeOne('refund-idempotency', history());
    expect(await withPagesOnDisk(() => judgeOne('refund-idempotency', history()))).toEqual(want);
  });
});
