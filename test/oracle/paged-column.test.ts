// Paged columns whose old pages wait in a scratch file: what is read back is what was set, however
// the rows were spread over memory and file, and an id index that confirms a hash match on the id.
import { describe, expect, it } from 'vitest';
import { Float64Column, StringColumn, Uint32Column, Uint8Column, pageSettings, pagesReadBack, valuesReadInPlace } from '../../src/oracle/lib/paged-column.ts';
import { PaymentRows } from '../../src/oracle/lib/payment-rows.ts';
import { scratchFilesOpened } from '../../src/oracle/lib/spill.ts';
import { withTinyPages } from './fixtures.ts';

/** Makes what `make` builds with tiny pages: four rows, one resident, one reloaded, so nearly every read goes to the file. */
const tiny = <T>(make: () => T): T => withTinyPages(make, 4);

/** A fixed shuffle of 0..n-1 (a linear congruential order, so a failure repeats). */
function shuffled(n: number): number[] {
  const out = Array.from({ length: n }, (_, i) => i);
  let x = 12345;
  for (let i = n - 1; i > 0; i--) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe('Float64Column, Uint32Column, Uint8Column with pages on disk', () => {
  it('reads back every value set, in any order, with values no float rounds (NaN, -0, 2^53 + 2)', () => {
    const specials = [NaN, -0, 0, Infinity, -Infinity, 2 ** 53 + 2, 5e-324, -1.5];
    const col = tiny(() => new Float64Column());
    const files = scratchFilesOpened();
    const before = pagesReadBack();
    const n = 203;
    const value = (r: number) => (r < specials.length ? specials[r] : r * 1.25 - 7);
    for (let r = 0; r < n; r++) col.set(r, value(r));
    expect(scratchFilesOpened()).toBe(files + 1);
    for (const r of shuffled(n)) expect(Object.is(col.get(r), value(r))).toBe(true);
    expect(pagesReadBack() - before).toBeGreaterThan(40);
    // Rows never set read 0, within a page and past the last one.
    expect(col.get(10_000)).toBe(0);
  });

  it('keeps a value set in a page after it went out, through the page going out again', () => {
    const col = tiny(() => new Uint32Column());
    const n = 64;
    for (let r = 0; r < n; r++) col.set(r, r + 1);
    // Row 5's page is read back, set, then pushed out by reading other pages.
    col.set(5, 4_000_000_000);
    for (const r of [40, 20, 60, 9]) col.get(r);
    expect(col.get(5)).toBe(4_000_000_000);
    for (const r of shuffled(n)) expect(col.get(r)).toBe(r === 5 ? 4_000_000_000 : r + 1);
    // Row 9's page read back first, then set while it is in memory, then pushed out.
    expect(col.get(9)).toBe(10);
    col.set(9, 99);
    for (const r of [40, 20, 60]) col.get(r);
    expect(col.get(9)).toBe(99);
    // A set in the newest page, then more pages, then a read of it from the file.
    col.set(n - 1, 7);
    for (let r = n; r < n + 12; r++) col.set(r, 1);
    expect(col.get(n - 1)).toBe(7);
  });

  it('sets rows out of order, leaving pages between them zero', () => {
    const col = tiny(() => new Uint8Column());
    col.set(30, 9);
    col.set(2, 3);
    col.set(17, 255);
    for (let r = 0; r < 40; r++) expect(col.get(r)).toBe(r === 30 ? 9 : r === 2 ? 3 : r === 17 ? 255 : 0);
  });
});

describe('StringColumn with pages on disk', () => {
  it('gives back every string set (ASCII, empty, not ASCII, a lone surrogate) and undefined where never set', () => {
    const odd = ['', 'é', 'naïve-key', '\u{1F4B3}card', '\ud800', 'a\u0000b'];
    const col = tiny(() => new StringColumn());
    const n = 150;
    const value = (r: number): string | undefined => (r % 7 === 3 ? undefined : r < odd.length ? odd[r] : `key_${r}_${'x'.repeat(r % 11)}`);
    for (let r = 0; r < n; r++) col.set(r, value(r));
    for (const r of shuffled(n)) {
      expect(col.get(r)).toBe(value(r));
      const v = value(r);
      if (v !== undefined) expect(col.equals(r, v)).toBe(true);
    }
    expect(col.get(n + 100)).toBeUndefined();
  });

  it('sends strings that are not ASCII to disk as UTF-8, keeping in the heap only what UTF-8 cannot carry', () => {
    // Key labels hold an ellipsis: every row of a soak's evidence naming a key was kept in the heap.
    const col = tiny(() => new StringColumn());
    const n = 200;
    const value = (r: number): string => (r % 50 === 7 ? `lone\ud800${r}` : `acme/test/…${String(r).padStart(4, '0')}${r % 3 ? 'é' : '\u{1F4B3}'}`);
    for (let r = 0; r < n; r++) col.set(r, value(r));
    const kept = (col as unknown as { kept: Map<number, string> }).kept;
    expect([...kept.keys()].sort((a, b) => a - b)).toEqual([7, 57, 107, 157].filter((r) => r < n - 2));
    for (const r of shuffled(n)) {
      const v = value(r);
      expect(col.equals(r, v)).toBe(true);
      // The same length and the same bytes but one: told apart in the file and in memory.
      expect(col.equals(r, v.replace('…', '‥'))).toBe(v.includes('…') ? false : true);
      expect(col.get(r)).toBe(v);
    }
  });

  it('tells a different string of the same length, or a prefix, from the one set', () => {
    const col = tiny(() => new StringColumn());
    for (let r = 0; r < 40; r++) col.set(r, `pay_${String(r).padStart(4, '0')}`);
    expect(col.equals(3, 'pay_0003')).toBe(true);
    expect(col.equals(3, 'pay_0004')).toBe(false);
    expect(col.equals(3, 'pay_000')).toBe(false);
    expect(col.equals(3, 'pay_00033')).toBe(false);
    expect(col.equals(39, 'pay_0039')).toBe(true);
  });

  it('compares a row of a page on disk in the file, without reading the page back', () => {
    const odd = ['', 'é', 'naïve-key', '\u{1F4B3}card', '\ud800'];
    const col = tiny(() => new StringColumn());
    const n = 60;
    const value = (r: number): string | undefined => (r % 7 === 3 ? undefined : r < odd.length ? odd[r] : `pay_${r}_${'x'.repeat(r % 5)}`);
    for (let r = 0; r < n; r++) col.set(r, value(r));
    // Set again after its page went out: kept in the heap, where the file's copy says otherwise.
    col.set(6, 'changed');
    const pages = pagesReadBack();
    const inPlace = valuesReadInPlace();
    for (const r of shuffled(n - 4)) {
      const v = value(r);
      if (r === 6) {
        expect(col.equals(r, 'changed')).toBe(true);
        expect(col.equals(r, v!)).toBe(false);
      } else if (v === undefined) {
        expect(col.equals(r, '')).toBe(false);
      } else {
        expect(col.equals(r, v)).toBe(true);
        expect(col.equals(r, v + 'y')).toBe(false);
        if (v.length > 0) expect(col.equals(r, v.slice(0, -1) + String.fromCharCode(v.charCodeAt(v.length - 1) ^ 1))).toBe(false);
      }
    }
    expect(pagesReadBack()).toBe(pages);
    expect(valuesReadInPlace()).toBeGreaterThan(inPlace);
    // A page read back for a get is compared in memory.
    col.get(9);
    const before = valuesReadInPlace();
    expect(col.equals(9, value(9)!)).toBe(true);
    expect(valuesReadInPlace()).toBe(before);
  });

  it('keeps a row set again after its page went out', () => {
    const col = tiny(() => new StringColumn());
    for (let r = 0; r < 20; r++) col.set(r, `v${r}`);
    col.set(2, 'changed');
    col.set(3, undefined);
    for (const r of [15, 9, 2, 12, 3]) col.get(r);
    expect(col.get(2)).toBe('changed');
    expect(col.equals(2, 'changed')).toBe(true);
    expect(col.equals(2, 'v2')).toBe(false);
    expect(col.get(3)).toBeUndefined();
    expect(col.get(4)).toBe('v4');
  });
});

describe('PaymentRows', () => {
  it('gives each id one row in first-asked order, finds it again, and tells ids whose hashes collide apart', () => {
    // pay_10unw and pay_1xwba have the same 32-bit FNV-1a hash (found by search): only the ids tell them apart.
    const rows = tiny(() => new PaymentRows());
    const ids = ['pay_10unw', ...Array.from({ length: 3000 }, (_, i) => `pay_${i.toString(36)}_x`), 'pay_1xwba'];
    ids.forEach((id, i) => expect(rows.rowOf(id)).toBe(i));
    expect(rows.size).toBe(ids.length);
    expect(rows.find('pay_10unw')).toBe(0);
    expect(rows.find('pay_1xwba')).toBe(ids.length - 1);
    expect(rows.find('pay_unknown')).toBeUndefined();
    for (const i of shuffled(ids.length)) {
      expect(rows.find(ids[i])).toBe(i);
      expect(rows.idAt(i)).toBe(ids[i]);
    }
    // Asking again gives the same row, not a new one.
    expect(rows.rowOf('pay_1xwba')).toBe(ids.length - 1);
    expect(rows.size).toBe(ids.length);
  });
});
