/**
 * unescapedInto (src/history/k6-lines.ts): the text of a JSON string literal, as the judge
 * thread of `paystorm check` is handed each k6 exchange record. Wherever it reads a literal, it
 * must give exactly what JSON.parse gives; wherever it does not, it must say so (-1), never
 * give another text.
 */
import { expect, it } from 'vitest';
import { unescapedInto } from '../../src/history/k6-lines.ts';

/** What unescapedInto gives for the literal, as a string (null: -1). */
function unescaped(literal: string): string | null {
  const buf = Buffer.from(`xx${literal}yy`, 'utf8');
  const start = 2;
  const end = buf.length - 2;
  const out = Buffer.alloc(end - start + 8, 0xee);
  const n = unescapedInto(buf, start, end, out, 3);
  if (n < 0) return null;
  // Nothing written outside [3, 3 + n).
  expect(out.subarray(0, 3).every((b) => b === 0xee)).toBe(true);
  expect(out.subarray(3 + n).every((b) => b === 0xee)).toBe(true);
  return out.toString('utf8', 3, 3 + n);
}

it('reads the literals k6 writes of compact records as JSON.parse does, `…` and other UTF-8 as it is', () => {
  const texts = [
    '[2,"create","m1/test/…0001","mixed",1893456000008,10.8599,201,[null,7307,"EUR","bench order",{"order":"00000007"}]]',
    '{"a":"x\\\\y","b":"a/b","c":"é ü 日本 😀"}',
    '',
    'plain',
  ];
  for (const text of texts) {
    const literal = JSON.stringify(text);
    expect(unescaped(literal)).toBe(JSON.parse(literal));
  }
  // A record as the scripts encode it, with quotes, backslashes and a solidus escaped.
  const literal = '"[2,\\"a\\\\\\"b\\",\\"c\\/d\\"]"';
  expect(unescaped(literal)).toBe(JSON.parse(literal));
});

it('leaves to JSON.parse every literal with another escape, a control byte or no closing quote', () => {
  for (const literal of ['"a\\nb"', '"a\\u2026b"', '"a\\tb"', '"a\u0001b"', '"abc', 'abc"', '"', '"a"b"', '"a\\"']) {
    expect(unescaped(literal)).toBeNull();
  }
});
