/**
 * LIST reviews: empty pages that say has_more true (no cursor to continue from), and the list
 * path behind a base address with a path.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import { create, endRec, judgeOne, list, resetSeq, retrieve, runRec } from './fixtures.ts';

beforeEach(() => resetSeq());

const id = (n: number) => `pay_00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const [A, B, C, D] = [1, 2, 3, 4].map(id);

async function listFailures(records: HistoryRecord[]) {
  const { invariants } = await judge([runRec(), ...records]);
  return invariants.filter((i) => i.rules.some((r) => r.startsWith('LIST-')) && (i.status === 'fail' || i.status === 'error')).map((i) => i.id);
}

describe('LIST: an empty page with has_more true', () => {
  it('FALSE PASS (LIST-8): filters applied after slicing the page, has_more from the unfiltered rows: status=failed&limit=2 answers [] has_more true while a failed payment exists', async () => {
    const recs: HistoryRecord[] = [
      create({ id: A, t: 0, p: { created: 1_700_000_000 } }),
      create({ id: B, t: 10, p: { created: 1_700_000_000 } }),
      create({ id: C, t: 20, p: { created: 1_700_000_001 } }),
      create({ id: D, t: 30, p: { created: 1_700_000_001 } }),
      retrieve(A, { t: 100, p: { status: 'failed', failureCode: 'do_not_honor', created: 1_700_000_000 } }),
      retrieve(B, { t: 110, p: { status: 'succeeded', created: 1_700_000_000 } }),
      retrieve(C, { t: 120, p: { status: 'succeeded', created: 1_700_000_001 } }),
      retrieve(D, { t: 130, p: { status: 'succeeded', created: 1_700_000_001 } }),
      // Large page: the slice holds every payment, so the late filter is invisible here.
      list([A], { t: 200, statuses: ['failed'], hasMore: false, sent: { list: { status: 'failed', limit: 100 } } }),
      // Short page: the 2 newest (D, C: succeeded) are sliced, then filtered to nothing; has_more true.
      list([], { t: 300, hasMore: true, sent: { list: { status: 'failed', limit: 2 } } }),
      endRec({ tEnd: 10_000 }),
    ];
    const r = await judgeOne('list-filters-before-pagination', recs);
    expect(r.status).toBe('fail');
  });

  it('FALSE PASS (LIST-5): a cursor walk that skips payments and ends on an empty page with has_more true (no cursor left) is never judged for completeness', async () => {
    const recs: HistoryRecord[] = [
      create({ id: A, t: 0, p: { created: 1_700_000_000 } }),
      create({ id: B, t: 10, p: { created: 1_700_000_001 } }),
      create({ id: C, t: 20, p: { created: 1_700_000_002 } }),
      create({ id: D, t: 30, p: { created: 1_700_000_003 } }),
      list([D, C], { t: 200, group: 'walk', hasMore: true, created: [1_700_000_003, 1_700_000_002], sent: { list: { limit: 2 } } }),
      list([], { t: 300, group: 'walk', hasMore: true, sent: { list: { limit: 2, startingAfter: C } } }),
      endRec({ tEnd: 10_000 }),
    ];
    // No LIST invariant fails on this history (nor does list-walk-exactly-once):
    expect.soft(await listFailures(recs)).not.toEqual([]);
    const r = await judgeOne('list-walk-exactly-once', recs);
    expect(r.status).toBe('fail');
  });

  it('no false fail: a final page that is empty with has_more false (the page before said has_more true)', async () => {
    const recs: HistoryRecord[] = [
      create({ id: A, t: 0, p: { created: 1_700_000_000 } }),
      create({ id: B, t: 10, p: { created: 1_700_000_001 } }),
      list([B, A], { t: 200, group: 'walk', hasMore: true, created: [1_700_000_001, 1_700_000_000], sent: { list: { limit: 2 } } }),
      list([], { t: 300, group: 'walk', hasMore: false, sent: { list: { limit: 2, startingAfter: A } } }),
      endRec({ tEnd: 10_000 }),
    ];
    expect(await listFailures(recs)).toEqual([]);
  });
});

describe('LIST-1 url behind a base address with a path', () => {
  it('FALSE FAIL: base_url http://host/api, url "/api/v1/payments" (the list path as served)', async () => {
    const recs: HistoryRecord[] = [list([], { t: 100, hasMore: false, sent: { list: {} } }), endRec({ tEnd: 10_000 })];
    recs[0] = { ...recs[0], list: { ...(recs[0] as { list: NonNullable<unknown> }).list, url: '/api/v1/payments' } } as HistoryRecord;
    const r = await judgeOne('list-envelope', recs, { target: { url: 'http://127.0.0.1:1/api', embedded: false, presentation: 'B' } });
    expect(r.examples.map((e) => e.message)).toEqual([]);
  });
});
