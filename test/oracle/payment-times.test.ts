// EarliestByPayment: the earliest time noted per payment, by row, and by id for a payment with no
// row yet; compared with a Map of the earliest time by id, with pages of two rows.
import { describe, expect, it } from 'vitest';
import { EarliestByPayment } from '../../src/oracle/lib/payment-times.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';
import { seededRandom } from '../../src/spec/random.ts';
import { withPagesOnDisk } from './fixtures.ts';

describe('EarliestByPayment', () => {
  it('gives the earliest time noted for each id, whether or when the id got its row, and gives no row itself', async () => {
    await withPagesOnDisk(() => {
      const r = seededRandom(7);
      const rows = new PaymentRows();
      const times = new EarliestByPayment(rows);
      const want = new Map<string, number>();
      for (let k = 0; k < 3000; k++) {
        const id = `pay_${Math.floor(r() * 400)}`;
        // Ids get their rows (the ledger seeing the payment) at random moments, some never.
        if (r() < 0.3 && !id.endsWith('7')) rows.rowOf(id);
        if (r() < 0.5) {
          const t = Math.floor(r() * 1000) - 100;
          times.note(id, t);
          want.set(id, Math.min(want.get(id) ?? Infinity, t));
        }
      }
      const before = rows.size;
      for (let n = 0; n < 420; n++) {
        const id = `pay_${n}`;
        expect({ id, t: times.get(id), has: times.has(id) }).toEqual({ id, t: want.get(id), has: want.has(id) });
      }
      expect(rows.size).toBe(before);
      // Some were noted before their row, some without one ever.
      expect([...want.keys()].filter((id) => rows.find(id) === undefined).length).toBeGreaterThan(10);
    });
  });
});
