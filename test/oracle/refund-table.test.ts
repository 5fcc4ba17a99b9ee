// The refunds the answers showed, as columns by rows shared with their status spans: each refund's
// facts read back as first seen, an amount filled in once when it was unknown, refunds in first-seen order.
import { describe, expect, it } from 'vitest';
import { Ledger, refundKey } from '../../src/oracle/ledger.ts';
import { refundObj, resetSeq, runRec, webhook } from './fixtures.ts';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';
import { RefundTable } from '../../src/oracle/lib/refund-table.ts';

function check(tiny: boolean): void {
  const saved = { ...pageSettings };
  if (tiny) Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
  let rows: PaymentRows;
  let paymentRows: PaymentRows;
  let table: RefundTable;
  try {
    rows = new PaymentRows();
    paymentRows = new PaymentRows();
    table = new RefundTable(rows, paymentRows);
  } finally {
    Object.assign(pageSettings, saved);
  }
  const want = new Map<string, { id: string; paymentId: string; amount: number | null; firstSeq: number }>();
  for (let i = 0; i < 80; i++) {
    const paymentId = i % 40 === 11 ? '' : `pay_${(i % 40) % 13}`;
    const id = `re_${i % 40}`;
    const key = refundKey(paymentId, id);
    // Another table's key given a row in between (the spans of a refund not recorded here).
    if (i % 9 === 0) rows.rowOf(`other-${i}`);
    // Unknown at first for some (seen again 40 later with an amount), and later unknown again for others.
    const amount = (i < 40 && i % 3 === 0) || (i >= 40 && i % 5 === 0) ? null : i % 7 === 0 ? -0 : 500 + i;
    table.observe(key, id, paymentId, amount, 1000 + i);
    const w = want.get(key);
    if (!w) want.set(key, { id, paymentId, amount, firstSeq: 1000 + i });
    else if (w.amount === null && amount !== null) w.amount = amount;
  }
  expect(table.size).toBe(want.size);
  expect(want.size).toBe(40);
  const got = [...table.values()].map((r) => ({ key: r.key, id: r.id, paymentId: r.paymentId, amount: r.amount, firstSeq: r.firstSeq }));
  expect(got).toEqual([...want].map(([key, w]) => ({ key, ...w })));
  for (const g of got) expect(Object.is(g.amount, want.get(g.key)!.amount)).toBe(true);
  expect(table.get(refundKey('pay_1', 're_1'))?.firstSeq).toBe(1001);
  expect(table.has('other-9')).toBe(false);
  expect(table.get('never')).toBeUndefined();
  // Each payment's refunds, in the order first seen: what a Map of lists built from values() held.
  const byPayment = new Map<string, string[]>();
  for (const r of got) byPayment.set(r.paymentId, [...(byPayment.get(r.paymentId) ?? []), r.key]);
  for (const [paymentId, keys] of byPayment) expect([...table.refundsOf(paymentId)].map((r) => r.key)).toEqual(keys);
  expect(byPayment.get('pay_1')!.length).toBeGreaterThan(2);
  expect([...table.refundsOf('pay_never')]).toEqual([]);
}

describe('RefundTable', () => {
  it('reads back each refund as first seen, with an amount learnt later', () => check(false));
  it('does the same with pages of two rows on disk', () => check(true));
});

describe('the ledger: a refund shown without its payment id', () => {
  // A webhook's refund payload may name no payment: the ledger files it under the one payment its
  // id was seen with, or under no payment when the id was seen with two (ids unique per payment only).
  for (const tiny of [false, true]) {
    it(`is filed under the one payment its id was seen with${tiny ? ' (pages of two rows)' : ''}`, () => {
      const saved = { ...pageSettings };
      if (tiny) Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
      try {
        resetSeq();
        const ledger = new Ledger(new Map());
        ledger.observe(runRec());
        const shown = (id: string, paymentId: string, status: 'pending' | 'succeeded', t: number) =>
          ledger.observe(webhook({ tReceived: t, type: status === 'succeeded' ? 'refund.succeeded' : undefined, payment: null, refund: refundObj({ id, paymentId, status }) }));
        // Filler refunds so the ids and owners of the ones that matter sit on pages gone to disk.
        for (let i = 0; i < 9; i++) shown(`re_fill${i}`, `pay_f${i}`, 'pending', 10 + i);
        shown('re_one', 'pay_a', 'pending', 100);
        shown('re_two', 'pay_a', 'pending', 110);
        shown('re_two', 'pay_b', 'pending', 120);
        for (let i = 9; i < 18; i++) shown(`re_fill${i}`, `pay_f${i}`, 'pending', 130 + i);
        shown('re_one', '', 'succeeded', 200);
        shown('re_two', '', 'succeeded', 210);
        shown('re_none', '', 'succeeded', 220);
        expect(ledger.refundSpans.firstEnd(refundKey('pay_a', 're_one'), 'succeeded').t).toBe(200);
        expect(ledger.refundSpans.firstEnd(refundKey('', 're_one'), 'succeeded').t).toBe(Infinity);
        // Seen with two payments: which one is not known.
        expect(ledger.refundSpans.firstEnd(refundKey('pay_a', 're_two'), 'succeeded').t).toBe(Infinity);
        expect(ledger.refundSpans.firstEnd(refundKey('', 're_two'), 'succeeded').t).toBe(210);
        expect(ledger.refundSpans.firstEnd(refundKey('', 're_none'), 'succeeded').t).toBe(220);
      } finally {
        Object.assign(pageSettings, saved);
      }
    });
  }
});
