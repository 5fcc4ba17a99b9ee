import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { Float64Column, Uint8Column, ValueCodes } from '../lib/paged-column.ts';
import { SpillColumns } from '../lib/spill.ts';

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
  create(ctx) {
    const f = new Findings();
    /**
     * Per key, the last id of a page -> its creation time (the cursor of the next page), by the
     * id's row in the ledger's payment rows: a paged column per key (old pages on disk), not a Map
     * entry per page of a soak. `known` marks the rows set.
     */
    const rows = ctx.ledger.paymentRows;
    const lastOfPage = new Map<string, { created: Float64Column; known: Uint8Column }>();
    /** Pages asked after a cursor: the newest item on each, ids as rows, the key as a code; numbers only, kept on disk (lib/spill.ts). */
    const afterCursor = new SpillColumns(['cursor', 'newest', 'newestId', 'seq', 't', 'key'] as const);
    const keyCodes = new ValueCodes<string>();
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
          if (!ofKey) lastOfPage.set(rec.key, (ofKey = { created: new Float64Column(), known: new Uint8Column() }));
          const r = rows.rowOf(ids[n - 1]);
          ofKey.created.set(r, created[n - 1]!);
          ofKey.known.set(r, 1);
        }
        const cursor = rec.sent.list?.startingAfter;
        if (cursor) {
          let newest = -Infinity;
          let newestId = '';
          for (let i = 0; i < n; i++) if (created[i] !== null && created[i]! > newest) (newest = created[i]!), (newestId = ids[i]);
          if (newestId) afterCursor.pushValues(rows.rowOf(cursor), newest, rows.rowOf(newestId), rec.seq, rec.tStart, keyCodes.codeOf(rec.key));
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
        for (const { cols, n } of afterCursor.chunks()) {
          const [cursors, newests, newestIds, seqs, ts, keys] = cols;
          for (let i = 0; i < n; i++) judgeCursor(cursors[i], newests[i], newestIds[i], seqs[i], ts[i], keyCodes.valueOf(keys[i])!);
        }
        return f.outcome('no list page held two payments, and no page followed a cursor seen on an earlier page');
      },
    };

    /** A page asked after the cursor in row `cursorRow`, whose newest item (in row `newestRow`) was created at `newest`. */
    function judgeCursor(cursorRow: number, newest: number, newestRow: number, seq: number, t: number, key: string): void {
      const ofKey = lastOfPage.get(key);
      if (!ofKey || ofKey.known.get(cursorRow) === 0) return;
      const c = ofKey.created.get(cursorRow);
      f.check();
      if (newest <= c) return;
      const cursor = rows.idAt(cursorRow);
      const newestId = rows.idAt(newestRow);
      f.violation({
        message: `the page after cursor ${cursor} (created ${c}) holds ${newestId}, created later (${newest}): pages of one walk are not newest first`,
        seqs: [seq],
        times: [Math.round(t * 10) / 10],
        keys: [key],
        paymentIds: [cursor, newestId],
      });
    }
  },
};
export default invariant;
