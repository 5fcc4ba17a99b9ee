/**
 * One row number per payment id, shared by the ledger's tables of payments (its facts, its status
 * spans): one index from id to row for all of them, not one per table, and rows that columns and
 * pages can hold by number. Rows are given in the order ids are first asked for and never move.
 *
 * The index holds numbers (lib/hash-slots.ts: the newest ids' hashes and rows in a table, older
 * ones in runs on disk), not a Map of strings: the ids themselves are a column whose old pages wait
 * in a scratch file (lib/paged-column.ts), so a soak's payment ids cost disk, not heap. A lookup
 * reads an id back only to confirm a row whose hash matches. The ids of the newest rows (as many as a
 * column keeps in memory) are also in a Map: nearly every lookup names a payment made in the last
 * few thousand (a run polls what it made lately), and a Map finds a string it has seen before by
 * the hash V8 keeps in the string, where the index hashes it again each time.
 */
import { HashSlots, hashOf, type RowMatcher } from './hash-slots.ts';
import { StringColumn, pageSettings } from './paged-column.ts';

export class PaymentRows implements RowMatcher {
  /** Row -> id. */
  private readonly ids = new StringColumn();
  private count = 0;
  private readonly slots = new HashSlots();
  /** The newest rows' ids -> row, and those ids by row modulo `recentRows` (the next to leave the Map). */
  private readonly recent = new Map<string, number>();
  private readonly recentIds: string[] = [];
  private readonly recentRows = pageSettings.rows * pageSettings.resident;
  /** The id asked for last and its row: the checks of one record ask for the same payment in turn. */
  private lastId: string | undefined = undefined;
  private lastRow = -1;

  /**
   * The id `find` last found no row for (until a row is given): a new payment is asked for, then
   * given its row (payments.has, then register), and that second lookup would search every run's
   * filter again.
   */
  private missedId: string | undefined = undefined;

  /** The id's row, given it now if it has none. */
  rowOf(id: string): number {
    if (id !== this.missedId) {
      const r = this.find(id);
      if (r !== undefined) return r;
    }
    this.missedId = undefined;
    const row = this.count++;
    this.ids.set(row, id);
    this.slots.add(row, hashOf(id));
    const at = row % this.recentRows;
    if (row >= this.recentRows) this.recent.delete(this.recentIds[at]);
    this.recentIds[at] = id;
    this.recent.set(id, row);
    this.lastId = id;
    this.lastRow = row;
    return row;
  }

  /** The id's row, undefined while it has none. */
  find(id: string): number | undefined {
    if (id === this.lastId) return this.lastRow;
    const near = this.recent.get(id);
    if (near !== undefined) {
      this.lastId = id;
      this.lastRow = near;
      return near;
    }
    if (id === this.missedId) return undefined;
    this.sought = id;
    const r = this.slots.find(hashOf(id), this);
    if (r < 0) {
      this.missedId = id;
      return undefined;
    }
    this.lastId = id;
    this.lastRow = r;
    return r;
  }

  /** The id `find` looks for, which `matchesRow` confirms a row against. */
  private sought = '';
  matchesRow(row: number): boolean {
    return this.ids.equals(row, this.sought);
  }

  /** The id of `row`; the next `find` of it answers without the index (a walk by row asks for the id it was just given). */
  idAt(row: number): string {
    const id = this.ids.get(row)!;
    this.lastId = id;
    this.lastRow = row;
    return id;
  }

  get size(): number {
    return this.count;
  }
}
