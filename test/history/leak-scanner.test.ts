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
});
