// LIST-2 across the pages of a walk: a page asked after cursor X holds nothing created after X, X's
// creation read from the page of the same key that ended with X. The notes live in paged columns
// and a spilled table, so the same history is judged again with them on disk.
import { describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import { endRec, K, list, resetSeq, runRec, withPagesOnDisk } from './fixtures.ts';

function history(): HistoryRecord[] {
  resetSeq();
  const recs: HistoryRecord[] = [runRec()];
  let t = 0;
  const page = (key: string, ids: string[], created: number[], hasMore: boolean, startingAfter?: string) =>
    recs.push(list(ids, { key, t: (t += 20), created, hasMore, sent: { list: startingAfter ? { startingAfter } : {} } }));
  // Walks that keep the order, enough of them to fill several pages of rows and spilled chunks.
  for (let w = 0; w < 40; w++) {
    page(K.test, [`pay_w${w}c`, `pay_w${w}b`], [3000 + w, 2000 + w], true);
    page(K.test, [`pay_w${w}a`], [1000 + w], false, `pay_w${w}b`);
  }
  // Key A: pay_x ended a page created at 200; a page after it holding one created at 250 is out of order.
  page(K.test, ['pay_y', 'pay_x'], [300, 200], true);
  page(K.test, ['pay_late'], [250], false, 'pay_x');
  // Key B ended a page with the same id at 500: under B, 400 after it is in order (and A's 200 is not B's).
  page(K.test2, ['pay_z', 'pay_x'], [600, 500], true);
  page(K.test2, ['pay_v'], [400], false, 'pay_x');
  // A cursor no page of the key ended with: nothing to compare with.
  page(K.test, ['pay_u'], [9999], false, 'pay_never_listed');
  recs.push(endRec({ tEnd: t + 100 }));
  return recs;
}

async function verdict() {
  const r = await judge(history(), { only: ['list-newest-first'] });
  return r.invariants[0];
}

describe('list-newest-first across the pages of a walk', () => {
  it('fails the page after a cursor that holds a later payment, per key, and checks only cursors it saw end a page', async () => {
    const v = await verdict();
    expect(v.status).toBe('fail');
    expect(v.violations).toBe(1);
    expect(v.examples[0].message).toBe('the page after cursor pay_x (created 200) holds pay_late, created later (250): pages of one walk are not newest first');
    expect(v.examples[0].paymentIds).toEqual(['pay_x', 'pay_late']);
    expect(v.examples[0].keys).toEqual([K.test]);
    // 40 two-item first pages, the two first pages of x, and 40 + 2 pages after a known cursor.
    expect(v.checked).toBe(42 + 42);
  });

  it('gives the same verdict with its notes on disk (pages of two rows, chunks of three)', async () => {
    const want = await verdict();
    expect(await withPagesOnDisk(verdict, 3)).toEqual(want);
  });
});
