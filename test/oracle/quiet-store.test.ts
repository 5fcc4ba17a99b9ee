/**
 * QuietStore (src/oracle/lib/quiet-store.ts): notes unused for a while leave the heap for a scratch
 * file and come back, as they were, when their payment is named again; notes in use stay.
 */
import { describe, expect, it } from 'vitest';
import { QuietStore, quietNotesWritten } from '../../src/oracle/lib/quiet-store.ts';
import { seededRandom } from '../../src/spec/random.ts';

interface Note {
  amount: number | undefined;
  description: string | null | undefined;
  metadata: Record<string, unknown> | null | undefined;
  seq: number;
}

describe('QuietStore', () => {
  it('gives back every note as set, whether it stayed in the heap or went to the file and back, under a random workload, and walks them in the order first set', () => {
    const rnd = seededRandom(5);
    const clock = { records: 0 };
    const store = new QuietStore<Note>(clock, 50);
    const truth = new Map<string, Note>();
    const before = quietNotesWritten();
    for (let i = 0; i < 20_000; i++) {
      // A record now and then uses the store more than once.
      if (rnd() < 0.8) clock.records++;
      // Most uses touch recent payments; some reach far back (a late read of an old payment).
      const n = truth.size;
      const pick = n === 0 || rnd() < 0.3 ? `pay_${n}` : `pay_${rnd() < 0.9 ? Math.max(0, n - 1 - Math.floor(rnd() * 20)) : Math.floor(rnd() * n)}`;
      if (!truth.has(pick) || rnd() < 0.05) {
        const note: Note = { amount: rnd() < 0.1 ? undefined : rnd() < 0.05 ? -0 : Math.floor(rnd() * 1e6), description: rnd() < 0.2 ? null : rnd() < 0.1 ? undefined : `order ${i} ü ${'x'.repeat(Math.floor(rnd() * 40))}`, metadata: rnd() < 0.3 ? { k: i, nested: [1, NaN, { deep: 'v' }] } : rnd() < 0.5 ? null : undefined, seq: i };
        store.set(pick, note);
        truth.set(pick, structuredClone(note));
      } else {
        expect(store.get(pick)).toStrictEqual(truth.get(pick));
      }
      expect(store.has(pick)).toBe(true);
    }
    expect(store.size).toBe(truth.size);
    // The walk gives every note in the order it was first set, wherever it is kept.
    expect([...store.entries()]).toStrictEqual([...truth]);
    for (const [id, note] of truth) expect(store.get(id), id).toStrictEqual(note);
    expect(store.get('pay_none')).toBeUndefined();
    expect(store.has('pay_none')).toBe(false);
    expect(quietNotesWritten() - before).toBeGreaterThan(truth.size / 2);
    // -0 and undefined come back as they went (JSON would give 0 and drop the field).
    const zc = { records: 1 };
    const z = new QuietStore<Note>(zc, 1);
    z.set('a', { amount: -0, description: undefined, metadata: undefined, seq: 1 });
    zc.records = 3;
    z.set('b', { amount: 1, description: 'b', metadata: null, seq: 2 });
    expect(quietNotesWritten() - before).toBeGreaterThan(0);
    const a = z.get('a')!;
    expect(Object.is(a.amount, -0)).toBe(true);
    expect('description' in a && a.description === undefined).toBe(true);
  });

  it('keeps the notes in use in the heap: only those unused for quietAfter records are written out', () => {
    const clock = { records: 0 };
    const store = new QuietStore<{ v: number }>(clock, 100);
    const before = quietNotesWritten();
    // One note used by every record never leaves; 1,000 others used by one record each all do, but the last 100 records' worth.
    for (let i = 0; i < 1_000; i++) {
      clock.records++;
      store.set(`once-${i}`, { v: i });
      expect(store.get('hot')?.v ?? (store.set('hot', { v: -1 }), -1)).toBe(-1);
    }
    // 1,000 records: the once-notes last used at or before record 900 (the first 900) are written out, 'hot' (used by the last) never.
    expect(quietNotesWritten() - before).toBe(900);
    expect(store.size).toBe(1_001);
  });
});
