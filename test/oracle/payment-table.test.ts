/**
 * PaymentTable (src/oracle/lib/payment-table.ts): the ledger's payments as columns by a row shared
 * with their status spans. What a view reads back must be what was registered, value for value,
 * whatever rows the shared index gave other ids in between.
 */
import { describe, expect, it } from 'vitest';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';
import { PaymentTable, type NewPayment, type PaymentFacts } from '../../src/oracle/lib/payment-table.ts';
import { seededRandom } from '../../src/spec/random.ts';
import { CARD_OUTCOMES } from '../../src/spec/index.ts';

const plain = (p: PaymentFacts) => ({ id: p.id, key: p.key, merchant: p.merchant, mode: p.mode, hosted: p.hosted, seq: p.seq, tStart: p.tStart, tEnd: p.tEnd, amount: p.amount, cardOutcome: p.cardOutcome, cardLast4: p.cardLast4, created: p.created });

describe('PaymentTable', () => {
  it('reads back every fact as registered, across pages, in registration order, with rows given to other ids in between', () => {
    const rnd = seededRandom(11);
    const rows = new PaymentRows();
    const table = new PaymentTable(rows);
    const model = new Map<string, NewPayment & { id: string }>();
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
    // Values a float table must not bend: -0, NaN, 2^53 + 2, fractions of a millisecond.
    const amounts = [null, 0, -0, 1, 50, 2 ** 53 + 2, 1e21, 0.5, NaN, -1];
    const createds = [null, undefined, 1_700_000_000, 0, -0, 1.5];
    for (let n = 0; n < 10_000; n++) {
      // A list or a retrieve names payments the run did not create: they get rows, not facts.
      if (rnd() < 0.4) rows.rowOf(`seen_${n}`);
      // Some payments are seen before their create is answered.
      const id = `pay_${n}`;
      if (rnd() < 0.1) rows.rowOf(id);
      const p = {
        key: pick(['a', 'b', 'merchant_b:live ...9f2c']),
        merchant: pick([undefined, 'm1', 'm2']),
        mode: pick([undefined, 'test', 'live'] as const),
        hosted: rnd() < 0.3,
        seq: n * 3 + 2 ** 32 * (n % 2),
        tStart: rnd() * 1e6,
        tEnd: rnd() * 1e6 + 0.001,
        amount: pick(amounts),
        cardOutcome: pick([undefined, ...CARD_OUTCOMES]),
        cardLast4: pick([undefined, '4242', '0002', '']),
        created: pick(createds) as number | null,
      };
      table.register(id, p);
      model.set(id, { id, ...p });
    }
    expect(table.size).toBe(model.size);
    expect([...table.values()].map(plain)).toEqual([...model.values()].map((m) => ({ ...m })));
    for (const [id, m] of model) {
      const p = table.get(id)!;
      expect(Object.is(p.amount, m.amount)).toBe(true);
      expect(Object.is(p.created, m.created)).toBe(true);
      expect(p.row).toBe(rows.find(id));
    }
    expect(table.has('seen_1') || table.has('seen_2')).toBe(false);
    expect(table.get('seen_0')).toBeUndefined();
    expect(table.get('never')).toBeUndefined();
  });

  it('keeps the first registration of an id, and changes a card only for a registered payment', () => {
    const rows = new PaymentRows();
    const table = new PaymentTable(rows);
    const base = { key: 'k', merchant: undefined, mode: 'test' as const, hosted: true, seq: 1, tStart: 1, tEnd: 2, amount: 100, cardOutcome: undefined, cardLast4: undefined, created: 10 };
    table.register('p1', base);
    table.register('p1', { ...base, amount: 5, seq: 9 });
    expect(table.size).toBe(1);
    expect(table.get('p1')?.amount).toBe(100);
    expect(table.get('p1')?.seq).toBe(1);
    table.setCard('p1', 'three_ds_challenge', '3184');
    expect([table.get('p1')?.cardOutcome, table.get('p1')?.cardLast4]).toEqual(['three_ds_challenge', '3184']);
    table.setCard('p1', undefined, undefined);
    expect([table.get('p1')?.cardOutcome, table.get('p1')?.cardLast4]).toEqual([undefined, undefined]);
    rows.rowOf('p2');
    table.setCard('p2', 'succeeds', '4242');
    expect(table.get('p2')).toBeUndefined();
  });
});
