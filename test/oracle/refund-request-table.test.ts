// The ledger's refund requests as columns: every field read back as added, each payment's requests
// in arrival order, payments in the order of their first request, with pages on disk or not.
import { describe, expect, it } from 'vitest';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';
import { RefundRequestTable, type RefundRequest } from '../../src/oracle/lib/refund-request-table.ts';

const FIELDS: (keyof RefundRequest)[] = ['seq', 'key', 'paymentId', 'tStart', 'tEnd', 'status', 'code', 'type', 'message', 'requestId', 'amount', 'refundId', 'idemKey', 'path', 'group', 'badInput', 'amountSent', 'slack'];

function request(i: number): RefundRequest {
  const amountSent = i % 9 === 4 ? '12.5' : i % 9 === 5 ? undefined : i % 9 === 6 ? NaN : i % 9 === 7 ? -0 : 100 + i;
  const refused = i % 5 === 2;
  return {
    seq: 1000 + i,
    key: i % 3 === 0 ? 'acme:test:1234' : 'beta:test:9999',
    paymentId: `pay_${i % 7}`,
    tStart: i * 1.5,
    tEnd: i * 1.5 + 0.25,
    status: refused ? 422 : 201,
    code: refused ? 'refund_exceeds_payment' : null,
    type: refused ? 'invalid_request_error' : null,
    message: refused ? `Refund validation failed [over]: ${i}` : undefined,
    requestId: refused ? `req_${i}` : undefined,
    amount: typeof amountSent === 'number' ? amountSent : undefined,
    refundId: refused ? undefined : `re_${i}`,
    idemKey: i % 4 === 0 ? undefined : `idem-${i}`,
    path: i % 2 === 0 ? 'payment' : 'refunds',
    group: i % 6 === 0 ? 'refund-race' : undefined,
    badInput: i % 9 === 4,
    amountSent,
    slack: i % 8 === 0 ? 3.5 : 0,
  };
}

function plain(q: RefundRequest): Record<string, unknown> {
  return Object.fromEntries(FIELDS.map((f) => [f, q[f]]));
}

function check(make: () => { table: RefundRequestTable; rows: PaymentRows }): void {
  const { table, rows } = make();
  const sent = Array.from({ length: 60 }, (_, i) => request(i));
  // Another table's rows given in between: the refund table names payments by shared rows.
  rows.rowOf('pay_other');
  for (const q of sent) table.add(q);
  expect(table.length).toBe(sent.length);
  for (let i = 0; i < sent.length; i++) {
    const got = plain(table.at(i));
    const want = plain(sent[i]);
    for (const f of FIELDS) expect(Object.is(got[f], want[f]), `${f} of request ${i}: ${String(got[f])} against ${String(want[f])}`).toBe(true);
  }
  const byPayment = table.byPayment;
  expect(byPayment.size).toBe(7);
  expect([...byPayment.keys()]).toEqual(['pay_0', 'pay_1', 'pay_2', 'pay_3', 'pay_4', 'pay_5', 'pay_6']);
  for (const [pid, reqs] of byPayment) {
    expect(reqs.map((q) => q.seq)).toEqual(sent.filter((q) => q.paymentId === pid).map((q) => q.seq));
    expect(byPayment.get(pid)!.map((q) => q.seq)).toEqual(reqs.map((q) => q.seq));
  }
  expect([...byPayment.values()].flat().length).toBe(sent.length);
  expect(byPayment.get('pay_other')).toBeUndefined();
  expect(byPayment.get('pay_never')).toBeUndefined();
  expect(byPayment.has('pay_3')).toBe(true);
}

describe('RefundRequestTable', () => {
  it('reads back every request as added, by payment in arrival order', () => {
    check(() => {
      const rows = new PaymentRows();
      return { rows, table: new RefundRequestTable(rows) };
    });
  });

  it('does the same with pages of two rows on disk', () => {
    check(() => {
      const saved = { ...pageSettings };
      Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
      try {
        const rows = new PaymentRows();
        return { rows, table: new RefundRequestTable(rows) };
      } finally {
        Object.assign(pageSettings, saved);
      }
    });
  });
});
