// Payments marked by row (lib/payment-marks.ts), read as the Set of ids it replaced: membership,
// each id once, in the order first marked (not the order the ids got their rows), also on disk.
import { describe, expect, it } from 'vitest';
import { withPagesOnDisk } from './fixtures.ts';
import { PaymentMarks } from '../../src/oracle/lib/payment-marks.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';

function check(): void {
  const rows = new PaymentRows();
  const marks = new PaymentMarks(rows);
  const model = new Set<string>();
  // Ids get their rows in one order (the run names them), and are marked in another, some twice.
  for (let i = 0; i < 40; i++) rows.rowOf(`pay_${i}`);
  for (const i of [37, 3, 21, 3, 8, 40, 37, 0, 41, 19]) {
    marks.add(`pay_${i}`);
    model.add(`pay_${i}`);
  }
  expect([...marks]).toEqual([...model]);
  expect(marks.size).toBe(model.size);
  for (let i = 0; i < 45; i++) expect(marks.has(`pay_${i}`), `pay_${i}`).toBe(model.has(`pay_${i}`));
  expect(marks.has('pay_never_named')).toBe(false);
}

describe('PaymentMarks', () => {
  it('reads as a Set of ids in the order first marked', () => check());
  it('does the same with pages of two rows on disk', () => withPagesOnDisk(check));
});
