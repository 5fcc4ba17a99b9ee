// The ledger's idempotency tuples as an index of numbers: a key's tuple found by (API key, scope,
// Idempotency-Key) exactly, keys whose hashes collide told apart, and tuples walked in the order of
// the nested Maps the index replaced.
import { describe, expect, it } from 'vitest';
import { IdemTable } from '../../src/oracle/lib/idem-table.ts';
import { IdemTuples, type IdemTuple } from '../../src/oracle/lib/idem-tuples.ts';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';
import { hashSettings } from '../../src/oracle/lib/hash-slots.ts';

interface Sent {
  key: string;
  scope: string;
  idemKey: string;
}

/** Adds each request as the ledger does; the nested Maps' walk, made alongside, is what `all()` must give. */
function replay(sent: Sent[]): { table: IdemTable; tuples: IdemTuples; nested: Map<string, Map<string, Map<string, number[]>>> } {
  const table = new IdemTable();
  const tuples = new IdemTuples(table);
  const nested = new Map<string, Map<string, Map<string, number[]>>>();
  sent.forEach((s, i) => {
    const g = tuples.groupOf(s.key, s.scope);
    const rowsBefore = rowsOf(tuples.find(g, s.idemKey));
    const row = table.add(i, s.key, s.scope, s.idemKey, undefined, i, i + 1, 201, undefined, undefined);
    tuples.add(g, s.idemKey, row, tuples.findHead(g, s.idemKey));
    const after = tuples.find(g, s.idemKey);
    let byScope = nested.get(s.key);
    if (!byScope) nested.set(s.key, (byScope = new Map()));
    let byValue = byScope.get(s.scope);
    if (!byValue) byScope.set(s.scope, (byValue = new Map()));
    const rows = byValue.get(s.idemKey) ?? [];
    expect(rowsBefore).toEqual(rows);
    rows.push(row);
    byValue.set(s.idemKey, rows);
    expect(rowsOf(after)).toEqual(rows);
  });
  return { table, tuples, nested };
}

function rowsOf(t: IdemTuple | undefined): number[] {
  return t === undefined ? [] : Array.isArray(t) ? [...t] : [t];
}

function sample(): Sent[] {
  const sent: Sent[] = [];
  const keys = ['acme:test:1234', 'beta:test:9999'];
  const scopes = ['create', 'refund_create', 'hosted_create'];
  for (let i = 0; i < 400; i++) {
    // Keys reused now and then, in every group, and the same Idempotency-Key under other keys and scopes.
    const idemKey = i % 5 === 0 ? `k-${i % 35}` : `k-${i}`;
    sent.push({ key: keys[(i >> 3) % 2], scope: scopes[i % 3], idemKey });
  }
  // Two Idempotency-Keys with one 32-bit FNV-1a hash, in one group: only the keys tell them apart.
  sent.push({ key: keys[0], scope: 'create', idemKey: 'pay_10unw' }, { key: keys[0], scope: 'create', idemKey: 'pay_1xwba' }, { key: keys[0], scope: 'create', idemKey: 'pay_10unw' });
  return sent;
}

function check(sent: Sent[], tiny: boolean): void {
  const saved = { ...pageSettings };
  const index = { ...hashSettings };
  if (tiny) Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
  // The index from keys to heads with two entries in memory, the rest in runs on disk.
  if (tiny) Object.assign(hashSettings, { memoryEntries: 2, runPageEntries: 2 });
  let made: ReturnType<typeof replay>;
  try {
    made = replay(sent);
  } finally {
    Object.assign(pageSettings, saved);
    Object.assign(hashSettings, index);
  }
  const { tuples, nested } = made;
  const want: number[][] = [];
  for (const byScope of nested.values()) for (const byValue of byScope.values()) for (const rows of byValue.values()) want.push(rows);
  expect([...tuples.all()].map(rowsOf)).toEqual(want);
  const g = tuples.findGroup('acme:test:1234', 'create')!;
  expect(rowsOf(tuples.find(g, 'pay_1xwba'))).toEqual([sent.length - 2]);
  expect(rowsOf(tuples.find(g, 'pay_10unw'))).toEqual([sent.length - 3, sent.length - 1]);
  expect(tuples.find(g, 'never-used')).toBeUndefined();
  expect(tuples.findGroup('acme:test:1234', 'no-such-scope')).toBeUndefined();
}

describe('IdemTuples', () => {
  it('finds each tuple by key, scope and Idempotency-Key, and walks them as the nested Maps did', () => {
    check(sample(), false);
  });

  it('does the same with the requests on pages of two rows on disk', () => {
    check(sample(), true);
  });

  for (const tiny of [false, true]) {
    it(`keeps a list in arrival order, sorts it by start then seq when asked, and appends after that${tiny ? ' (pages of two rows)' : ''}`, () => {
      const saved = { ...pageSettings };
      if (tiny) Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
      try {
        const table = new IdemTable();
        const tuples = new IdemTuples(table);
        const g = tuples.groupOf('acme:test:1234', 'create');
        const starts = new Map<number, number>();
        const send = (idemKey: string, tStart: number) => {
          const row = table.add(starts.size, 'acme:test:1234', 'create', idemKey, undefined, tStart, tStart + 1, 201, undefined, undefined);
          starts.set(row, tStart);
          tuples.add(g, idemKey, row, tuples.findHead(g, idemKey));
          return row;
        };
        const a = [send('a', 50), send('b', 7), send('a', 10), send('a', 30), send('a', 10)];
        expect(rowsOf(tuples.find(g, 'a'))).toEqual([a[0], a[2], a[3], a[4]]);
        expect(rowsOf(tuples.find(g, 'b'))).toEqual([a[1]]);
        expect(tuples.sortLists()).toBe(true);
        // Equal starts go by seq (rows here).
        expect(rowsOf(tuples.find(g, 'a'))).toEqual([a[2], a[4], a[3], a[0]]);
        expect(tuples.sortLists()).toBe(false);
        const late = send('a', 1);
        const b2 = send('b', 3);
        expect(rowsOf(tuples.find(g, 'a'))).toEqual([a[2], a[4], a[3], a[0], late]);
        expect(tuples.sortLists()).toBe(true);
        expect(rowsOf(tuples.find(g, 'a'))).toEqual([late, a[2], a[4], a[3], a[0]]);
        expect(rowsOf(tuples.find(g, 'b'))).toEqual([b2, a[1]]);
        expect([...tuples.all()].map(rowsOf)).toEqual([[late, a[2], a[4], a[3], a[0]], [b2, a[1]]]);
      } finally {
        Object.assign(pageSettings, saved);
      }
    });
  }
});
