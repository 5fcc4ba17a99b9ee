// list-filters-before-pagination (LIST-8) held every ended first page, with a Set of its ids, to
// the end, and both it and list-walk-exactly-once (LIST-5) kept the payments a customer acted on
// in a Set of ids (lib/lists.ts StatusFilterFacts): both grew all through a soak. The pages are
// now paged columns, the actions a byte by payment row. This compares each check, on random
// listings, with the one it replaced (test/oracle/replaced/): the same status, count, checks and
// evidence. The regression corpus hardly lists (one history of 301 reaches LIST-8, none LIST-5).
import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, HistoryRecord } from '../../src/history/index.ts';
import { seededRandom } from '../../src/spec/random.ts';
import type { PaymentStatus } from '../../src/spec/index.ts';
import filtersBeforePagination from '../../src/oracle/invariants/list-filters-before-pagination.ts';
import walkExactlyOnce from '../../src/oracle/invariants/list-walk-exactly-once.ts';
import replacedFilters from './replaced/list-filters-before-pagination.ts';
import replacedWalk from './replaced/list-walk-exactly-once.ts';
import { expectJudgedAsReplaced, judgeWith } from './replaced/compare.ts';
import { K, create, ex, list, resetSeq, retrieve, runRec, withPagesOnDisk } from './fixtures.ts';

const CREATED = 1_700_000_000;
const FILTERS = [undefined, undefined, 'pending', 'requires_action', 'succeeded', 'failed', 'SUCCEEDED'] as const;

interface Made {
  id: string;
  key: string;
  created: number;
  answeredAt: number;
  /** Status by time: [from, status], in order. */
  statuses: [number, PaymentStatus][];
}

const statusAt = (m: Made, t: number): PaymentStatus => m.statuses.filter(([from]) => from <= t).at(-1)?.[1] ?? m.statuses[0][1];

/**
 * Payments of two keys, some hosted (a form submitted, now and then before the create is
 * recorded), moving between statuses and polled; first pages and cursor walks with status,
 * created-bound (now and then not a number) and limit filters, that now and then leave a
 * matching payment out or show one twice.
 */
function history(seed: number): HistoryRecord[] {
  const r = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  resetSeq();
  const out: ExchangeRecord[] = [];
  const made: Made[] = [];
  const n = 4 + Math.floor(r() * 10);
  for (let i = 0; i < n; i++) {
    const id = `pay_${seed}_${i}`;
    const key = r() < 0.7 ? K.test : K.test2;
    const t0 = 20 * i;
    const hosted = r() < 0.3;
    const first: PaymentStatus = hosted ? 'requires_action' : pick(['pending', 'pending', 'succeeded', 'failed'] as const);
    // Now and then a hosted create is answered slowly, after its form was submitted: the submit
    // comes first in the history, when the ledger has no row for the payment yet.
    const slow = hosted && r() < 0.25;
    const m: Made = { id, key, created: CREATED + i, answeredAt: t0 + (slow ? 60 : 10), statuses: [[t0, first]] };
    if (first !== 'succeeded' && first !== 'failed' && r() < 0.7) m.statuses.push([t0 + 60 + Math.floor(r() * 200), pick(['succeeded', 'failed', 'pending'] as const)]);
    made.push(m);
    out.push(create({ op: hosted ? 'create_hpp' : 'create', id, key, t: t0, dur: m.answeredAt - t0, p: { status: first, created: m.created, hosted } }));
    if (hosted && (slow || r() < 0.8)) out.push(ex({ op: 'submit_hpp', key, status: 303, t: t0 + 30, sent: { paymentId: id, cardOutcome: 'succeeds' } }));
    for (let k = Math.floor(r() * 4); k > 0; k--) {
      const t = t0 + 20 + Math.floor(r() * 300);
      out.push(retrieve(id, { key, t, p: { status: statusAt(m, t), created: m.created, hosted } }));
    }
  }
  const pages = 3 + Math.floor(r() * 8);
  for (let k = 0; k < pages; k++) {
    const key = r() < 0.7 ? K.test : K.test2;
    const t = Math.floor(r() * (20 * n + 300));
    const status = pick(FILTERS);
    const gte = r() < 0.2 ? CREATED + Math.floor(r() * n) : r() < 0.05 ? 'abc' : undefined;
    const lt = r() < 0.2 ? CREATED + Math.floor(r() * n) : undefined;
    const limit = pick([undefined, 2, 3, 100]);
    const matching = made
      .filter((m) => m.key === key && m.answeredAt < t)
      .filter((m) => (typeof gte !== 'number' || m.created >= gte) && (lt === undefined || m.created < lt))
      .filter((m) => status === undefined || statusAt(m, t) === status.toLowerCase())
      .sort((a, b) => b.created - a.created);
    let shown = matching.slice();
    if (shown.length > 0 && r() < 0.25) shown.splice(Math.floor(r() * shown.length), 1);
    if (shown.length > 0 && r() < 0.1) shown.push(shown[0]);
    const group = r() < 0.5 ? `walk-${k}` : undefined;
    const size = typeof limit === 'number' && group ? limit : shown.length;
    const sentList = { status, createdGte: gte, createdLt: lt, limit };
    const showPage = (ids: Made[], at: number, startingAfter: string | undefined, hasMore: boolean) =>
      list(
        ids.map((m) => m.id),
        { key, t: at, group, hasMore, statuses: ids.map((m) => statusAt(m, at)), created: ids.map((m) => m.created), sent: { list: { ...sentList, startingAfter } } },
      );
    let from = 0;
    let at = t;
    let cursor: string | undefined;
    do {
      const ids = shown.slice(from, from + Math.max(1, size));
      from += ids.length;
      const more = from < shown.length && !(r() < 0.05);
      out.push(showPage(ids, at, cursor, more || (ids.length === 0 && r() < 0.3)));
      cursor = ids.at(-1)?.id;
      at += 15;
      if (!more) break;
    } while (group && from < shown.length);
  }
  out.sort((a, b) => a.tEnd - b.tEnd || a.seq - b.seq);
  return [runRec(), ...out];
}


describe.each([
  { id: 'list-filters-before-pagination', now: filtersBeforePagination, was: replacedFilters },
  { id: 'list-walk-exactly-once', now: walkExactlyOnce, was: replacedWalk },
])('$id, pages and customer actions kept in paged columns', ({ now, was }) => {
  it('judges random listings as the check it replaced did', async () => {
    const tally = await expectJudgedAsReplaced(now, was, history);
    // The listings reach both verdicts often.
    expect(tally.fail).toBeGreaterThan(20);
    expect(tally.pass).toBeGreaterThan(20);
  }, 120_000);
});

describe('customer actions kept by payment row: what random listings seldom reach', () => {
  it('a form submitted before the create was answered still excuses the payment from a requires_action listing', async () => {
    resetSeq();
    const id = 'pay_slow';
    const records: HistoryRecord[] = [
      runRec(),
      // The submit ends before the create's answer: the ledger has no row for the payment when it is read.
      ex({ op: 'submit_hpp', status: 303, t: 20, dur: 5, sent: { paymentId: id, cardOutcome: 'succeeds' } }),
      create({ op: 'create_hpp', id, t: 0, dur: 60, p: { status: 'requires_action', hosted: true, created: CREATED } }),
      retrieve(id, { t: 70, p: { status: 'requires_action', hosted: true, created: CREATED } }),
      list([], { t: 100, hasMore: false, sent: { list: { status: 'requires_action' } } }),
      retrieve(id, { t: 130, p: { status: 'requires_action', hosted: true, created: CREATED } }),
    ];
    for (const [now, was] of [
      [filtersBeforePagination, replacedFilters],
      [walkExactlyOnce, replacedWalk],
    ] as const) {
      const want = await judgeWith(was, records);
      expect(await withPagesOnDisk(() => judgeWith(now, records))).toEqual(want);
    }
    // The customer acted, so the payment may have left requires_action meanwhile: not one the page had to show.
    expect(await judgeWith(filtersBeforePagination, records)).toMatchObject({ status: 'pass', checked: 1, violations: 0 });
  });
});
