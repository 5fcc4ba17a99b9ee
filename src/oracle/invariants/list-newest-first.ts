import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';

/**
 * LIST-2: data is newest first by creation (equal seconds may come in any order), within one
 * page and across the pages of a cursor walk: every item of a page asked with
 * `starting_after=X` comes after X in that order, so none was created after X. X's creation
 * time is read from the page that showed X (the last item of an earlier page of the same key).
 * Payments made during the walk are newer than every cursor and belong before it, so they do
 * not weaken this.
 */
const invariant: Invariant = {
  id: 'list-newest-first',
  title: 'List data is newest first by creation, within a page and across the pages of a walk',
  rules: ['LIST-2'],
  create() {
    const f = new Findings();
    /** Per key, the last id of a page -> its creation time (the cursor of the next page): by key, then id, to build no string per page. */
    const lastOfPage = new Map<string, Map<string, number>>();
    /** Pages asked after a cursor: the newest item on each. */
    const afterCursor: { cursor: string; newest: number; newestId: string; seq: number; t: number; key: string }[] = [];
    return {
      kinds: ['exchange'],
      ops: ['list'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'list' || !is2xx(rec.status) || !rec.list) return;
        const { created, ids } = rec.list;
        const n = ids.length;
        // Only a page with more after it is followed by a cursor (keeps the map small on long runs).
        if (n > 0 && rec.list.hasMore !== false && created[n - 1] !== null && created[n - 1] !== undefined) {
          let ofKey = lastOfPage.get(rec.key);
          if (!ofKey) lastOfPage.set(rec.key, (ofKey = new Map()));
          ofKey.set(ids[n - 1], created[n - 1]!);
        }
        const cursor = rec.sent.list?.startingAfter;
        if (cursor) {
          let newest = -Infinity;
          let newestId = '';
          for (let i = 0; i < n; i++) if (created[i] !== null && created[i]! > newest) (newest = created[i]!), (newestId = ids[i]);
          if (newestId) afterCursor.push({ cursor, newest, newestId, seq: rec.seq, t: rec.tStart, key: rec.key });
        }
        let known = 0;
        for (let i = 0; i < created.length && known < 2; i++) if (created[i] !== null) known++;
        if (known < 2) return;
        f.check();
        let prev: number | null = null;
        for (let i = 0; i < created.length; i++) {
          const c = created[i];
          if (c === null) continue;
          if (prev !== null && c > prev) {
            f.violation(evidence(`list item ${rec.list.ids[i]} (created ${c}) comes after one created ${prev}`, [rec], { paymentIds: [rec.list.ids[i]] }));
            break;
          }
          prev = c;
        }
      },
      finish() {
        for (const p of afterCursor) {
          const c = lastOfPage.get(p.key)?.get(p.cursor);
          if (c === undefined) continue;
          f.check();
          if (p.newest > c) {
            f.violation({
              message: `the page after cursor ${p.cursor} (created ${c}) holds ${p.newestId}, created later (${p.newest}): pages of one walk are not newest first`,
              seqs: [p.seq],
              times: [Math.round(p.t * 10) / 10],
              keys: [p.key],
              paymentIds: [p.cursor, p.newestId],
            });
          }
        }
        return f.outcome('no list page held two payments, and no page followed a cursor seen on an earlier page');
      },
    };
  },
};
export default invariant;
