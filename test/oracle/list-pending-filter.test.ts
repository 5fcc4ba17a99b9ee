/**
 * LIST-5 / LIST-8 with a non-terminal status filter (`pending`, `requires_action`). Such payments
 * change status while a page is served, so a filter page may leave one out only when it may have
 * been in another status at some time of the page (of the walk). A payment seen in the status by
 * an answer that ended before the page began and again by one that started after it ended, with
 * no way back into the status in between, was in it all through the page and must be shown:
 * - terminal statuses are final, so it cannot have settled in between;
 * - requires_action is left for pending only after a customer action (hosted page submitted, 3DS
 *   completed): none sent before the later look, none of that;
 * - pending is left for requires_action (3DS) and back only the same way; presentation A's
 *   PENDING and PROCESSING move between each other as the spec leaves open, and whether the
 *   `pending` filter takes PROCESSING is open too: a pending filter is judged in presentation B
 *   alone, on payments never seen processing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import { create, endRec, ex, judgeOne, list, resetSeq, retrieve, runRec } from './fixtures.ts';

beforeEach(() => resetSeq());

const id = (n: number) => `pay_00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const [A, B] = [1, 2].map(id);
const RUN_A = { target: { url: 'http://127.0.0.1:1', embedded: true, presentation: 'A' as const } };

/** A made at 0 and seen pending at 50 (before the page) and 300 (after it). */
const pendingAround = (after: HistoryRecord[] = []): HistoryRecord[] => [create({ id: A, t: 0 }), retrieve(A, { t: 50 }), ...after];
const pendingPage = (ids: string[], o: Parameters<typeof list>[1] = {}) => list(ids, { t: 100, hasMore: false, sent: { list: { status: 'pending', limit: 10 } }, ...o });

describe('LIST-8: a pending filter page that ends (has_more false) must hold every payment surely pending all through it', () => {
  it('FALSE PASS: status=pending answers [] has_more false while a payment was pending before and after the page', async () => {
    const r = await judgeOne('list-filters-before-pagination', [...pendingAround(), pendingPage([], { seq: 30 }), retrieve(A, { t: 300 }), endRec({ tEnd: 10_000 })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].paymentIds).toEqual([A]);
  });

  it('keeps: the page shows it', async () => {
    const r = await judgeOne('list-filters-before-pagination', [...pendingAround(), pendingPage([A]), retrieve(A, { t: 300 })]);
    expect(r.status).toBe('pass');
  });

  it('FALSE PASS: requires_action (hosted page never submitted): status=requires_action answers [] has_more false', async () => {
    const ra = { status: 'requires_action' as const, wireStatus: 'requires_action', hosted: true, nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://pay.example/h/1' } };
    const recs = [create({ op: 'create_hpp', id: A, t: 0, p: ra }), list([], { t: 100, hasMore: false, sent: { list: { status: 'requires_action' } } }), retrieve(A, { t: 300, p: ra })];
    expect((await judgeOne('list-filters-before-pagination', recs)).status).toBe('fail');
    resetSeq();
    // In presentation A too: requires_action is left for a non-terminal status only after a customer action.
    const raA = { ...ra, presentation: 'A' as const, wireStatus: 'REQUIRES_ACTION' };
    const recsA = [create({ op: 'create_hpp', id: A, t: 0, p: raA }), list([], { t: 100, hasMore: false, sent: { list: { status: 'requires_action' } } }), retrieve(A, { t: 300, p: raA })];
    expect((await judgeOne('list-filters-before-pagination', recsA, RUN_A)).status).toBe('fail');
  });
});

describe('LIST-8 pending filter: no false fail', () => {
  const judged = async (recs: HistoryRecord[], run = {}) => (await judgeOne('list-filters-before-pagination', recs, run)).status;

  it('pending before, succeeded after: it may have settled while the page was served', async () => {
    expect(await judged([...pendingAround(), pendingPage([]), retrieve(A, { t: 300, p: { status: 'succeeded', wireStatus: 'succeeded', succeededAt: 1_700_000_001 } })])).not.toBe('fail');
  });

  it('seen pending only before the page, or only after it', async () => {
    expect(await judged([...pendingAround(), pendingPage([])])).not.toBe('fail');
    resetSeq();
    expect(await judged([create({ id: A, t: 0, p: { status: 'requires_action', wireStatus: 'requires_action' } }), pendingPage([]), retrieve(A, { t: 300 })])).not.toBe('fail');
  });

  it('a look that overlaps the page proves nothing about the page', async () => {
    expect(await judged([create({ id: A, t: 0 }), retrieve(A, { t: 95, dur: 10 }), pendingPage([]), retrieve(A, { t: 108, dur: 10 })])).not.toBe('fail');
  });

  it('a 3DS completion sent before the later look: it may have gone requires_action and back to pending', async () => {
    const done = ex({ op: 'complete_3ds', t: 150, status: 200, sent: { paymentId: A } });
    expect(await judged([...pendingAround(), pendingPage([]), done, retrieve(A, { t: 300 })])).not.toBe('fail');
  });

  it('a raw request off the API paths (a user scenario following redirect_url itself) may have been a customer action', async () => {
    const act = ex({ op: 'raw', t: 150, status: 200, sent: { method: 'POST', path: '/hosted/h_1/submit' } });
    expect(await judged([...pendingAround(), pendingPage([]), act, retrieve(A, { t: 300 })])).not.toBe('fail');
  });

  it('a raw probe on an API path is no customer action: the empty page still fails', async () => {
    for (const path of ['/v1/payments', '/v1/payments/hpp', `/v1/payments/${A}`, `/v1/payments/${A}/refund`, '/v1/refunds', '/v1/payments?limit=1', '/payments-svc/v1/payments']) {
      resetSeq();
      const probe = ex({ op: 'raw', t: 150, status: 401, sent: { method: 'POST', path, auth: 'unknown-key' } });
      expect(await judged([...pendingAround(), pendingPage([]), probe, retrieve(A, { t: 300 }), endRec({ tEnd: 10_000 })]), path).toBe('fail');
    }
  });

  it('a customer action that named no payment may have been for this one', async () => {
    const done = ex({ op: 'complete_3ds', t: 150, status: 200, sent: { path: '/3ds/x' } });
    expect(await judged([...pendingAround(), pendingPage([]), done, retrieve(A, { t: 300 })])).not.toBe('fail');
  });

  it('presentation A: PENDING and PROCESSING may alternate, and the filter may not take PROCESSING', async () => {
    const pa = { presentation: 'A' as const, wireStatus: 'PENDING' };
    expect(await judged([create({ id: A, t: 0, p: pa }), retrieve(A, { t: 50, p: pa }), pendingPage([]), retrieve(A, { t: 300, p: pa })], RUN_A)).not.toBe('fail');
  });

  it('a payment seen processing (off the B enum) is not judged', async () => {
    expect(await judged([...pendingAround(), retrieve(A, { t: 60, p: { status: 'processing', wireStatus: 'processing' } }), retrieve(A, { t: 70 }), pendingPage([]), retrieve(A, { t: 300 })])).not.toBe('fail');
  });

  it('created bounds still apply', async () => {
    const page = pendingPage([], { sent: { list: { status: 'pending', createdGte: '1700000005' } } });
    expect(await judged([...pendingAround(), page, retrieve(A, { t: 300 })])).not.toBe('fail');
  });

  it('requires_action with the hosted page submitted before the later look is not judged', async () => {
    const ra = { status: 'requires_action' as const, wireStatus: 'requires_action', hosted: true };
    const submit = ex({ op: 'submit_hpp', t: 150, status: 200, sent: { paymentId: A } });
    expect(await judged([create({ op: 'create_hpp', id: A, t: 0, p: ra }), list([], { t: 100, hasMore: false, sent: { list: { status: 'requires_action' } } }), submit, retrieve(A, { t: 300, p: ra })])).not.toBe('fail');
  });
});

describe('LIST-5: a complete walk with a pending filter', () => {
  it('FALSE PASS: misses a payment pending from before the walk began until after it ended', async () => {
    const recs: HistoryRecord[] = [
      create({ id: A, t: 0 }),
      create({ id: B, t: 10, p: { created: 1_700_000_001 } }),
      retrieve(A, { t: 50 }),
      list([B], { t: 100, group: 'walk', hasMore: true, created: [1_700_000_001], sent: { list: { status: 'pending', limit: 1 } } }),
      list([], { t: 200, group: 'walk', hasMore: false, sent: { list: { status: 'pending', limit: 1, startingAfter: B } } }),
      retrieve(A, { t: 400 }),
    ];
    const r = await judgeOne('list-walk-exactly-once', recs);
    expect(r.status).toBe('fail');
    expect(r.examples[0].paymentIds).toEqual([A]);
  });

  it('no false fail: pending before the walk and during it, failed after it: it may have settled while the last page was served', async () => {
    const recs: HistoryRecord[] = [
      create({ id: A, t: 0 }),
      create({ id: B, t: 10, p: { created: 1_700_000_001 } }),
      retrieve(A, { t: 50 }),
      list([B], { t: 100, group: 'walk', hasMore: true, created: [1_700_000_001], sent: { list: { status: 'pending', limit: 1 } } }),
      retrieve(A, { t: 150 }),
      list([], { t: 200, group: 'walk', hasMore: false, sent: { list: { status: 'pending', limit: 1, startingAfter: B } } }),
      retrieve(A, { t: 400, p: { status: 'failed', wireStatus: 'failed', failedAt: 1_700_000_001, failureCode: 'do_not_honor' } }),
    ];
    expect((await judgeOne('list-walk-exactly-once', recs)).status).not.toBe('fail');
  });
});

describe('LIST-6: a payment on a pending page that was already terminal before the page', () => {
  it('is caught (not a gap): shown pending, SM-2 fails it; shown in its terminal status, LIST-6 fails it', async () => {
    const settled = { status: 'succeeded' as const, wireStatus: 'succeeded', succeededAt: 1_700_000_001 };
    for (const shownAs of ['pending', 'succeeded']) {
      resetSeq();
      const recs: HistoryRecord[] = [runRec(), create({ id: A, t: 0 }), retrieve(A, { t: 50, p: settled }), pendingPage([A], { statuses: [shownAs] }), endRec({ tEnd: 10_000 })];
      const { invariants } = await judge(recs);
      const failed = invariants.filter((i) => i.status === 'fail').map((i) => i.id);
      expect(failed, `shown as ${shownAs}`).toContain(shownAs === 'pending' ? 'terminal-is-final' : 'list-status-filter');
    }
  });
});
