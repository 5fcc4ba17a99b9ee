// The check as it was before it kept its state by payment row (commit 62ddc55): the reference
// test/oracle/lists-by-row.test.ts compares the current one with. Not registered; do not edit.
import type { Invariant } from '../../../src/oracle/types.ts';
import { is2xx } from '../../../src/oracle/lib/exchange.ts';
import { Findings } from '../../../src/oracle/lib/findings.ts';
import { StatusFilterFacts } from './status-filter-facts.ts';
import type { StatusFilterFacts as CurrentFacts } from '../../../src/oracle/lib/lists.ts';
import { listParams, mustShow, paymentsByKey, type ListParams } from '../../../src/oracle/lib/lists.ts';

/**
 * LIST-8: filters apply before pagination, so a first page with has_more false holds every
 * matching payment: all the key's payments made before the request that match the created
 * bounds (and, with a status filter, were certainly in that status while the page was served:
 * a terminal status seen before it, or a non-terminal one seen before and after it with no way
 * out and back in between; lib/lists.ts StatusFilterFacts).
 * A short page with has_more true is allowed and not judged, unless it is empty: the cursor is
 * "the id of the last payment of the previous page", so an empty page ends the walk whatever
 * has_more says, and must then have held every matching payment too.
 */
const invariant: Invariant = {
  id: 'list-filters-before-pagination',
  title: 'Filters apply before pagination: has_more false means no further matching payment exists',
  rules: ['LIST-8'],
  create(ctx) {
    const f = new Findings();
    const pages: { key: string; seq: number; tStart: number; tEnd: number; slack: number; params: ListParams; ids: Set<string> }[] = [];
    const facts = new StatusFilterFacts();
    return {
      kinds: ['exchange'],
      ops: ['list', ...StatusFilterFacts.OPS],
      onRecord(rec) {
        if (rec.kind !== 'exchange') return;
        if (rec.op !== 'list') return facts.note(rec);
        if (!is2xx(rec.status) || !rec.list || rec.sent.badInput) return;
        if (rec.list.hasMore !== false && !(rec.list.hasMore === true && rec.list.ids.length === 0)) return;
        const params = listParams(rec);
        if (params.startingAfter) return;
        pages.push({ key: rec.key, seq: rec.seq, tStart: rec.tStart, tEnd: rec.tEnd, slack: rec.clockSlackMs ?? 0, params, ids: new Set(rec.list.ids) });
      },
      finish() {
        const byKey = paymentsByKey(ctx);
        for (const pg of pages) {
          const expected = mustShow(ctx, byKey, pg.key, pg.tStart, pg.params, { from: pg.tStart - pg.slack, to: pg.tEnd + pg.slack, facts: facts as unknown as CurrentFacts });
          if (!expected) continue;
          f.check();
          const missing = expected.filter((p) => !pg.ids.has(p.id));
          if (missing.length) {
            f.violation({
              message: `list by ${pg.key} ended (has_more false, or an empty page, which leaves no cursor) but left out ${missing.length} matching payment(s) made before it: ${missing.slice(0, 3).map((p) => p.id).join(', ')}`,
              seqs: [pg.seq, ...missing.slice(0, 2).map((p) => p.seq)],
              paymentIds: missing.slice(0, 5).map((p) => p.id),
              keys: [pg.key],
            });
          }
        }
        return f.outcome('no first list page said has_more false (or came back empty)');
      },
    };
  },
};
export default invariant;
