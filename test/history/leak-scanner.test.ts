import { describe, expect, it } from 'vitest';
import { LeakScanner } from '../../src/history/leak-scanner.ts';
import { leakKind } from '../../src/history/schema.ts';

describe('LeakScanner', () => {
  it('finds and redacts a key in the base64 forms it travels in (Basic key:, bare), padded or not', () => {
    // Lengths 3n, 3n+1 and 3n+2 end their base64 differently; one with non-ASCII text too.
    for (const secret of ['svc_test_sk_abc', 'svc_test_sk_abcd', 'svc_test_sk_abcde', 'svc_test_sk_é漢']) {
      const scanner = new LeakScanner([{ secret, label: 'shop' }]);
      for (const form of [Buffer.from(`${secret}:`).toString('base64'), Buffer.from(secret).toString('base64')]) {
        for (const echoed of [form, form.replace(/=+$/, '')]) {
          const text = `{"message":"bad header Basic ${echoed}"}`;
          const found = scanner.echoes(text);
          expect(found?.map(leakKind), `${secret} ${echoed}`).toEqual(['api_key']);
          expect(scanner.redact(text)).not.toContain(echoed.replace(/=+$/, ''));
          expect(scanner.snippet(text)).toContain('shop');
        }
      }
    }
  });

  it('walks a body nested 200,000 deep without overflowing the stack, and finds what sits at the bottom', () => {
    const scanner = new LeakScanner();
    const depth = 200_000;
    expect(scanner.structural(JSON.parse('['.repeat(depth) + ']'.repeat(depth)))).toBeUndefined();
    const found = scanner.structural(JSON.parse('{"a":'.repeat(depth) + '{"amount":1.5}' + '}'.repeat(depth)));
    expect(found).toHaveLength(1);
    expect(found![0]).toBe(`non-integer amount at ${Array(depth).fill('a').join('.')}.amount`);
  });

  it('lists structural findings in document order with their paths', () => {
    const scanner = new LeakScanner();
    expect(
      scanner.structural({ items: [{ amount: 1.5 }, { card: { cvc: '123', number: '4242424242424242' } }], amount: '12', b: { c: { amount_refunded: 2.5 } } }),
    ).toEqual([
      'non-integer amount at items[0].amount',
      'cvc returned at items[1].card.cvc',
      'full card number at items[1].card.number',
      'non-integer amount at amount',
      'non-integer amount at b.c.amount_refunded',
    ]);
  });
});
