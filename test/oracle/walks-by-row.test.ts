// The end of a run walks every payment and refund in row order, and each check then asks for the
// one it was handed by id. The id index keeps its older entries on disk (lib/hash-slots.ts), so a
// walk that looked every id up again read an index page a payment: about 540,000 pages at 1M
// records. A walk's id is given by its row, so the lookup that follows must answer without the
// index, and must still answer every other id right.
import { describe, expect, it, vi } from 'vitest';
import { HashSlots, hashSettings, indexPagesReadBack } from '../../src/oracle/lib/hash-slots.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';
import { RefundTable } from '../../src/oracle/lib/refund-table.ts';
import { StatusSpans } from '../../src/oracle/lib/status-spans.ts';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';
import { refundKey } from '../../src/oracle/ledger.ts';

/** Makes what `make` builds with an index of four entries in memory and pages of two (nearly every id on disk), and pages of two rows. */
function onDisk<T>(make: () => T): T {
  const savedIndex = { ...hashSettings };
  const savedPages = { ...pageSettings };
  Object.assign(hashSettings, { memoryEntries: 4, runPageEntries: 2 });
  Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
  try {
    return make();
  } finally {
    Object.assign(hashSettings, savedIndex);
    Object.assign(pageSettings, savedPages);
  }
}

/** A copy of the string that is not the same string object (as a column read back gives). */
const copy = (s: string) => [...s].join('');

describe('walks by row', () => {
  it('a lookup of the id a row was just read for reads no index page, and other ids still resolve', () => {
    const rows = onDisk(() => new PaymentRows());
    const n = 300;
    for (let i = 0; i < n; i++) rows.rowOf(`pay_${i}`);
    // The ids of old rows are on disk: looking one up cold reads the index.
    const before = indexPagesReadBack();
    expect(rows.find(copy('pay_7'))).toBe(7);
    expect(indexPagesReadBack()).toBeGreaterThan(before);
    const walked = indexPagesReadBack();
    for (let r = 0; r < n; r++) {
      const id = rows.idAt(r);
      expect(rows.find(copy(id))).toBe(r);
      expect(rows.rowOf(id)).toBe(r);
    }
    expect(indexPagesReadBack()).toBe(walked);
    // The row read last does not answer for another id.
    rows.idAt(5);
    expect(rows.find('pay_6')).toBe(6);
    expect(rows.find('pay_5')).toBe(5);
    expect(rows.find('pay_none')).toBeUndefined();
    rows.idAt(9);
    expect(rows.rowOf('pay_new')).toBe(n);
  });

  it("a walk of a status table's ids asks each id's statuses without the index", () => {
    const { spans } = onDisk(() => {
      const rows = new PaymentRows();
      return { spans: new StatusSpans(['pending', 'succeeded', 'failed', 'refunded'] as const, rows) };
    });
    for (let i = 0; i < 200; i++) {
      spans.add(`pay_${i}`, 'pending', i, i + 1, 2 * i);
      if (i % 3 === 0) spans.add(`pay_${i}`, 'succeeded', i + 5, i + 6, 2 * i + 1);
    }
    const before = indexPagesReadBack();
    let i = 0;
    for (const id of spans.ids()) {
      expect(id).toBe(`pay_${i}`);
      expect(spans.observed(id)).toEqual(i % 3 === 0 ? ['pending', 'succeeded'] : ['pending']);
      expect(spans.firstEnd(id, 'pending')).toEqual({ t: i + 1, seq: 2 * i });
      expect(spans.orderedPairs(id).length).toBe(i % 3 === 0 ? 1 : 0);
      i++;
    }
    expect(i).toBe(200);
    expect(indexPagesReadBack()).toBe(before);
  });

  it("a walk of the refunds names each refund's payment by its row: asking for that payment reads no index page", () => {
    const { table, paymentRows } = onDisk(() => {
      const paymentRows = new PaymentRows();
      return { paymentRows, table: new RefundTable(new PaymentRows(), paymentRows) };
    });
    for (let i = 0; i < 150; i++) paymentRows.rowOf(`pay_${i}`);
    // Refunds of payments out of row order, two of some; one names no payment.
    const want: [string, string][] = [];
    for (let i = 0; i < 120; i++) {
      const paymentId = i === 17 ? '' : `pay_${(i * 37) % 150}`;
      const id = `re_${i}`;
      table.observe(refundKey(paymentId, id), id, paymentId, 100 + i, i);
      want.push([id, paymentId]);
    }
    const before = indexPagesReadBack();
    const got: [string, string][] = [];
    for (const r of table.values()) {
      const paymentId = r.paymentId;
      got.push([r.id, paymentId]);
      if (paymentId) expect(paymentRows.idAt(paymentRows.find(paymentId)!)).toBe(paymentId);
    }
    expect(got).toEqual(want);
    expect(indexPagesReadBack()).toBe(before);
  });

  it('a new id asked for and then given its row is searched for once, and a miss is forgotten once a row is given', () => {
    const rows = onDisk(() => new PaymentRows());
    for (let i = 0; i < 100; i++) rows.rowOf(`pay_${i}`);
    const searches = vi.spyOn(HashSlots.prototype, 'find');
    try {
      // payments.has, then register: one search of the index, not two.
      expect(rows.find('pay_new')).toBeUndefined();
      expect(rows.find(copy('pay_new'))).toBeUndefined();
      expect(rows.rowOf(copy('pay_new'))).toBe(100);
      expect(searches).toHaveBeenCalledTimes(1);
      // A miss, then another id given a row: the first is still missing, and is given the next row.
      expect(rows.find('pay_other')).toBeUndefined();
      expect(rows.rowOf('pay_third')).toBe(101);
      expect(rows.find('pay_other')).toBeUndefined();
      expect(rows.rowOf('pay_other')).toBe(102);
      expect(rows.find(copy('pay_other'))).toBe(102);
      expect(rows.find('pay_new')).toBe(100);
      expect(rows.find('pay_3')).toBe(3);
    } finally {
      searches.mockRestore();
    }
  });
});
