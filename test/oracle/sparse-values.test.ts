// Fields few rows have (an error's code and request id, a probe's marks), a paged string column a
// field with a byte a row saying which are set, and a Map for values that are not strings: each
// read must give back what was set, for rows in memory and rows on disk alike.
import { describe, expect, it } from 'vitest';
import { SparseValues } from '../../src/oracle/lib/sparse-values.ts';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';
import { seededRandom } from '../../src/spec/random.ts';

const FIELDS = ['code', 'type', 'message', 'requestId', 'amountSent'] as const;

function check(tiny: boolean): void {
  const saved = { ...pageSettings };
  if (tiny) Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
  let v: SparseValues<(typeof FIELDS)[number]>;
  try {
    v = new SparseValues(FIELDS);
  } finally {
    Object.assign(pageSettings, saved);
  }
  const r = seededRandom(7);
  const values: unknown[] = [undefined, undefined, undefined, 'card_declined', '', 'réf-ü', null, 0, 12.5, { a: [1] }, ['x'], false];
  const model: Record<string, unknown>[] = [];
  for (let row = 0; row < 400; row++) {
    const m: Record<string, unknown> = {};
    for (const f of FIELDS) {
      const x = values[Math.floor(r() * values.length)];
      v.set(row, f, x);
      m[f] = x;
    }
    model.push(m);
  }
  for (let row = 0; row < 400; row++) {
    for (const f of FIELDS) {
      expect(v.get(row, f), `row ${row} ${f}`).toStrictEqual(model[row][f]);
      expect(v.string(row, f)).toBe(typeof model[row][f] === 'string' ? model[row][f] : undefined);
    }
  }
  // Rows never set read as unset.
  expect(v.get(10_000, 'code')).toBeUndefined();
}

describe('SparseValues', () => {
  it('gives back each field as set: strings (empty, not ASCII), null, numbers, objects; unset fields undefined', () => check(false));
  it('does the same with pages of two rows on disk', () => check(true));
  it('holds at most eight fields (a byte a row)', () => {
    expect(() => new SparseValues(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'])).toThrow(/at most eight/);
  });
});
