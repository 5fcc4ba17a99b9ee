// PAY-8's metadata: what a payment's later answers are compared with is kept as canonical text (a
// plain object) or as the value itself (anything else), and compares as the objects did: key order
// aside at the top level, nested values exactly, null as null, absent as "not compared". The same
// cases again with the texts on pages of two rows on disk.
import { describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/history/index.ts';
import { create, judgeOne, resetSeq, retrieve, withPagesOnDisk } from './fixtures.ts';

interface Case {
  name: string;
  /** The create's sent metadata (undefined: none sent) and what its answer showed. */
  sent: unknown;
  shown: Record<string, unknown> | null;
  /** What later retrieves showed, and whether each is a violation. */
  later: { metadata: Record<string, unknown> | null; presentation?: 'A' | 'B'; bad: boolean }[];
  expected?: string;
  inputShape?: 'A' | 'B';
  /** The create's own answer differs from what it sent. */
  createBad?: boolean;
}

const CASES: Case[] = [
  { name: 'key order at the top level does not matter', sent: { a: '1', b: '2' }, shown: { a: '1', b: '2' }, later: [{ metadata: { b: '2', a: '1' }, bad: false }] },
  { name: 'a changed value is a change', sent: { a: '1' }, shown: { a: '1' }, later: [{ metadata: { a: '2' }, bad: true }], expected: '[["a","1"]]' },
  { name: 'a key more or less is a change', sent: { a: '1' }, shown: { a: '1' }, later: [{ metadata: { a: '1', b: '2' }, bad: true }, { metadata: {}, bad: true }] },
  { name: 'nested values compare exactly, order included', sent: { n: { x: 1, y: 2 } }, shown: { n: { x: 1, y: 2 } }, later: [{ metadata: { n: { x: 1, y: 2 } }, bad: false }, { metadata: { n: { y: 2, x: 1 } }, bad: true }] },
  { name: 'none sent and none shown: not compared', sent: undefined, shown: null, later: [{ metadata: { a: '1' }, bad: false }] },
  { name: 'none sent, some shown: held to it', sent: undefined, shown: { k: 'v' }, inputShape: 'A', later: [{ metadata: { k: 'v' }, bad: false }, { metadata: { k: 'w' }, bad: true }] },
  { name: 'null sent: null expected', sent: null, shown: null, later: [{ metadata: { a: '1' }, bad: true }, { metadata: null, bad: false }] },
  { name: 'presentation A shows no metadata: not a change', sent: { a: '1' }, shown: { a: '1' }, later: [{ metadata: null, presentation: 'A', bad: false }, { metadata: null, presentation: 'B', bad: true }] },
  { name: 'an odd value a lenient service took is compared as it was', sent: 'x', shown: null, createBad: true, later: [{ metadata: {}, bad: true }], expected: 'null' },
  { name: 'text that is not ASCII reads back as written', sent: { note: 'café ☕' }, shown: { note: 'café ☕' }, later: [{ metadata: { note: 'café ☕' }, bad: false }, { metadata: { note: 'cafe' }, bad: true }] },
];

/** Every case's payment made first, then every later look (so old rows are read back from disk with small pages). */
function history(): HistoryRecord[] {
  resetSeq();
  const recs: HistoryRecord[] = [];
  CASES.forEach((c, i) => {
    recs.push(create({ id: `pay_m${i}`, t: i, sent: { inputShape: c.inputShape ?? 'B', ...(c.sent !== undefined ? { metadata: c.sent as Record<string, string> } : {}) }, p: { metadata: c.shown as Record<string, string> | null } }));
  });
  CASES.forEach((c, i) => {
    for (const l of c.later) recs.push(retrieve(`pay_m${i}`, { t: 1000 + recs.length, p: { metadata: l.metadata as Record<string, string> | null, ...(l.presentation ? { presentation: l.presentation } : {}) } }));
  });
  return recs;
}

async function judged() {
  return judgeOne('payment-echoes-input', history());
}

describe('payment-echoes-input: metadata', () => {
  it('flags exactly the looks whose metadata differs from what was sent (or first shown)', async () => {
    const r = await judged();
    // The creates' own answers come first in the history, then the later looks.
    const bad = [...CASES.flatMap((c, i) => (c.createBad ? [`pay_m${i}`] : [])), ...CASES.flatMap((c, i) => c.later.filter((l) => l.bad).map(() => `pay_m${i}`))];
    expect(r.violations).toBe(bad.length);
    expect(r.examples.map((e) => e.message.split(' ')[1])).toEqual(bad.slice(0, r.examples.length));
    for (const [i, c] of CASES.entries()) {
      if (!c.expected) continue;
      expect(r.examples.find((e) => e.message.startsWith(`payment pay_m${i} `))?.message).toContain(`(expected ${c.expected})`);
    }
  });

  it('gives the same verdict with the texts on pages of two rows on disk', async () => {
    const want = await judged();
    expect(await withPagesOnDisk(() => judged())).toEqual(want);
  });
});
