// The looks at refunded payments that judge foreign refunds by their effect, kept by payment row:
// the same looks kept as the plain model (a list per payment id, a look dropped when another
// beats it), in the same order, with pages on disk or not.
import { describe, expect, it } from 'vitest';
import { RefundEffects } from '../../src/oracle/lib/foreign-access.ts';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';

/** The rule stated plainly: per id, flat [t, refunds, total, seq] rows no other row beats. */
class Model {
  readonly rows = new Map<string, number[]>();
  add(id: string, t: number, refunds: number, total: number, seq: number): void {
    const r = this.rows.get(id);
    if (!r) return void this.rows.set(id, [t, refunds, total, seq]);
    for (let i = 0; i < r.length; i += 4) if (r[i] <= t && r[i + 1] >= refunds && r[i + 2] >= total) return;
    const kept: number[] = [];
    for (let i = 0; i < r.length; i += 4) if (!(t <= r[i] && refunds >= r[i + 1] && total >= r[i + 2])) kept.push(r[i], r[i + 1], r[i + 2], r[i + 3]);
    kept.push(t, refunds, total, seq);
    this.rows.set(id, kept);
  }
}

function run(tiny: boolean): void {
  const saved = { ...pageSettings };
  if (tiny) Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
  let effects: RefundEffects;
  try {
    effects = new RefundEffects(new PaymentRows());
  } finally {
    Object.assign(pageSettings, saved);
  }
  const model = new Model();
  let x = 7;
  const next = (n: number) => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), x % n);
  for (let seq = 0; seq < 3000; seq++) {
    const id = `pay_${next(60)}`;
    // Later looks mostly show more, sometimes less (a total that went down, fewer entries).
    const t = seq + next(50);
    const refunds = next(4);
    const total = next(5) * 100;
    effects.add(id, t, refunds, total, seq);
    model.add(id, t, refunds, total, seq);
  }
  let several = 0;
  for (const [id, rows] of model.rows) {
    expect([...effects.of(id)]).toEqual(rows);
    if (rows.length > 4) several++;
  }
  // The looks kept are more than one for some payments: the path beyond the first row is exercised.
  expect(several).toBeGreaterThan(10);
  expect(effects.of('pay_never')).toEqual([]);
}

describe('RefundEffects', () => {
  it('keeps the looks the plain rule keeps', () => run(false));
  it('does the same with pages of two rows on disk', () => run(true));
});
