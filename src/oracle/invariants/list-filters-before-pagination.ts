import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings } from '../lib/findings.ts';
import { StatusFilterFacts, listParams, mustShow, paymentsByKey, type ListParams } from '../lib/lists.ts';
import { Float64Column, StringColumn, Uint32Column, Uint8Column, ValueCodes } from '../lib/paged-column.ts';

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
/**
 * The pages judged at the end, as paged columns (old pages on disk: lib/paged-column.ts), not an
 * object and a Set of ids each: a soak lists all through, and each such page was held to the end.
 * The ids are kept as their JSON text, read back into a Set once, at the end.
 */
class EndedPages {
  length = 0;
  private readonly keyCodes = new ValueCodes<string>();
  private readonly keys = new Uint32Column();
  private readonly seqs = new Float64Column();
  private readonly starts = new Float64Column();
  private readonly ends = new Float64Column();
  private readonly slacks = new Float64Column();
  /** Which of limit, gte and lt were sent (LIMIT, GTE, LT). */
  private readonly sent = new Uint8Column();
  private readonly limits = new Float64Column();
  private readonly gtes = new Float64Column();
  private readonly lts = new Float64Column();
  private readonly statusCodes = new ValueCodes<string>();
  private readonly statuses = new Uint32Column();
  private readonly ids = new StringColumn();

  push(key: string, seq: number, tStart: number, tEnd: number, slack: number, params: ListParams, ids: readonly string[]): void {
    const i = this.length++;
    this.keys.set(i, this.keyCodes.codeOf(key));
    this.seqs.set(i, seq);
    this.starts.set(i, tStart);
    this.ends.set(i, tEnd);
    this.slacks.set(i, slack);
    // A Float64Array keeps NaN (a bound that was not a number) as NaN.
    this.sent.set(i, (params.limit !== undefined ? LIMIT : 0) | (params.gte !== undefined ? GTE : 0) | (params.lt !== undefined ? LT : 0));
    this.limits.set(i, params.limit ?? 0);
    this.gtes.set(i, params.gte ?? 0);
    this.lts.set(i, params.lt ?? 0);
    this.statuses.set(i, this.statusCodes.codeOf(params.status));
    this.ids.set(i, JSON.stringify(ids));
  }

  /** Page `i` as it was pushed (startingAfter: never, the pages kept are first pages). */
  at(i: number): { key: string; seq: number; tStart: number; tEnd: number; slack: number; params: ListParams; ids: Set<string> } {
    const sent = this.sent.get(i);
    return {
      key: this.keyCodes.valueOf(this.keys.get(i))!,
      seq: this.seqs.get(i),
      tStart: this.starts.get(i),
      tEnd: this.ends.get(i),
      slack: this.slacks.get(i),
      params: {
        limit: sent & LIMIT ? this.limits.get(i) : undefined,
        startingAfter: undefined,
        status: this.statusCodes.valueOf(this.statuses.get(i)),
        gte: sent & GTE ? this.gtes.get(i) : undefined,
        lt: sent & LT ? this.lts.get(i) : undefined,
      },
      ids: new Set(JSON.parse(this.ids.get(i)!) as string[]),
    };
  }
}
const LIMIT = 1;
const GTE = 2;
const LT = 4;

const invariant: Invariant = {
  id: 'list-filters-before-pagination',
  title: 'Filters apply before pagination: has_more false means no further matching payment exists',
  rules: ['LIST-8'],
  create(ctx) {
    const f = new Findings();
    const pages = new EndedPages();
    const facts = new StatusFilterFacts(ctx.ledger.paymentRows);
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
        pages.push(rec.key, rec.seq, rec.tStart, rec.tEnd, rec.clockSlackMs ?? 0, params, rec.list.ids);
      },
      finish() {
        const byKey = paymentsByKey(ctx);
        for (let i = 0; i < pages.length; i++) {
          const pg = pages.at(i);
          const expected = mustShow(ctx, byKey, pg.key, pg.tStart, pg.params, { from: pg.tStart - pg.slack, to: pg.tEnd + pg.slack, facts });
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
