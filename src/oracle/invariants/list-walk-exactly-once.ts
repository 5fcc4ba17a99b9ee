import type { Invariant } from '../types.ts';
import type { PaymentFacts } from '../ledger.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings } from '../lib/findings.ts';
import { StatusFilterFacts, filterKey, listParams, mustShow, paymentsByKey, type ListParams } from '../lib/lists.ts';

interface Page {
  seq: number;
  tStart: number;
  tEnd: number;
  /** A merged shard's clock slack, ms. */
  slack: number;
  cursor: string | undefined;
  filters: string;
  params: ListParams;
  ids: string[];
  hasMore: boolean | null;
}

/**
 * LIST-5: a walk (list pages of one key sharing a `group`, each starting after the last id
 * of the page before) shows no payment twice, and, once complete (has_more false, or an empty
 * page, which leaves no cursor), every
 * payment the key had made before the walk began that matches the filters, also while
 * new payments are being created. With a non-terminal status filter (pending,
 * requires_action), "matches" means surely in that status all through the walk
 * (lib/lists.ts StatusFilterFacts).
 */
const invariant: Invariant = {
  id: 'list-walk-exactly-once',
  title: 'Walking pages by cursor yields each payment exactly once, also while new payments are created',
  rules: ['LIST-5'],
  create(ctx) {
    const f = new Findings();
    const groups = new Map<string, { key: string; pages: Page[] }>();
    const facts = new StatusFilterFacts(ctx.ledger.paymentRows);
    return {
      kinds: ['exchange'],
      ops: ['list', ...StatusFilterFacts.OPS],
      onRecord(rec) {
        if (rec.kind !== 'exchange') return;
        if (rec.op !== 'list') return facts.note(rec);
        if (rec.group === undefined || !is2xx(rec.status) || !rec.list) return;
        const g = `${rec.key}\u0000${rec.group}`;
        let entry = groups.get(g);
        if (!entry) groups.set(g, (entry = { key: rec.key, pages: [] }));
        const params = listParams(rec);
        entry.pages.push({ seq: rec.seq, tStart: rec.tStart, tEnd: rec.tEnd, slack: rec.clockSlackMs ?? 0, cursor: params.startingAfter, filters: filterKey(params), params, ids: rec.list.ids, hasMore: rec.list.hasMore });
      },
      finish() {
        const byKey = paymentsByKey(ctx);
        let concurrent = 0;
        for (const { key, pages } of groups.values()) {
          pages.sort((a, b) => a.tStart - b.tStart);
          const walks: Page[][] = [];
          for (const p of pages) {
            if (!p.cursor) {
              walks.push([p]);
              continue;
            }
            const w = walks.find((w) => {
              const last = w[w.length - 1];
              return last.ids[last.ids.length - 1] === p.cursor && last.filters === p.filters && last.tEnd <= p.tStart;
            });
            if (w) w.push(p);
          }
          for (const w of walks) {
            // Ended: has_more false, or an empty page, which leaves no cursor to go on from ("the id of the last payment of the previous page").
            const last = w[w.length - 1];
            const complete = last.hasMore === false || (last.hasMore === true && last.ids.length === 0);
            if (w.length < 2 && !complete) continue;
            f.check();
            const start = w[0].tStart;
            const end = w[w.length - 1].tEnd;
            if (ctx.ledger.payments.size && madeDuring(byKey.get(key) ?? [], start, end)) concurrent++;
            const seenOn = new Map<string, number>();
            for (const p of w) {
              for (const id of p.ids) {
                const first = seenOn.get(id);
                if (first !== undefined) f.violation({ message: `walk by ${key} showed payment ${id} twice`, seqs: [first, p.seq], paymentIds: [id], keys: [key] });
                else seenOn.set(id, p.seq);
              }
            }
            if (!complete) continue;
            // With a non-terminal status filter: payments in that status all through the walk.
            const slack = Math.max(...w.map((p) => p.slack));
            const expected = mustShow(ctx, byKey, key, start, w[0].params, { from: start - slack, to: end + slack, facts });
            const missing = (expected ?? []).filter((p) => !seenOn.has(p.id));
            if (missing.length) {
              f.violation({
                message: `complete walk by ${key} (${w.length} pages) missed ${missing.length} payment(s) made before it began: ${missing.slice(0, 3).map((p) => p.id).join(', ')}`,
                seqs: [...w.map((p) => p.seq).slice(0, 3), ...missing.slice(0, 2).map((p) => p.seq)],
                paymentIds: missing.slice(0, 5).map((p) => p.id),
                keys: [key],
              });
            }
          }
        }
        return f.outcome('no cursor walk over several pages (list pages sharing a group) was recorded', `${f.checked} walks, ${concurrent} while payments were being created`);
      },
    };
  },
};
export default invariant;

/** Whether any of `payments` was being created (its create in flight) at some time between `start` and `end`. */
function madeDuring(payments: Iterable<PaymentFacts>, start: number, end: number): boolean {
  for (const p of payments) if (p.tStart < end && p.tEnd > start) return true;
  return false;
}
