/**
 * One row number per payment id, shared by the ledger's tables of payments (its facts, its status
 * spans): one index from id to row for all of them, not one per table, and rows that columns and
 * pages can hold by number. Rows are given in the order ids are first asked for and never move.
 *
 * The index is an open-addressed table of numbers (a row and the id's hash a slot, 16 bytes a
 * payment at most), not a Map of strings: the ids themselves are a column whose old pages wait in
 * a scratch file (lib/paged-column.ts), so a soak's payment ids cost disk, not heap. A lookup reads
 * an id back only to confirm a slot whose hash matches. The ids of the newest rows (as many as a
 * column keeps in memory) are also in a Map: nearly every lookup names a payment made in the last
 * few thousand (a run polls what it made lately), and a Map finds a string it has seen before by
 * the hash V8 keeps in the string, where the index hashes it again each time.
 */
import { StringColumn, pageSettings } from './paged-column.ts';

/** 32-bit FNV-1a of the string's UTF-16 code units. */
export function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class PaymentRows {
  /** Row -> id. */
  private readonly ids = new StringColumn();
  private count = 0;
  /** Slot pairs [row + 1 (0: free), hash]; at most half full. */
  private slots = new Uint32Array(2 * 1024);
  private mask = 1023;
  /** The newest rows' ids -> row, and those ids by row modulo `recentRows` (the next to leave the Map). */
  private readonly recent = new Map<string, number>();
  private readonly recentIds: string[] = [];
  private readonly recentRows = pageSettings.rows * pageSettings.resident;
  /** The id asked for last and its row: the checks of one record ask for the same payment in turn. */
  private lastId: string | undefined = undefined;
  private lastRow = -1;

  /** The id's row, given it now if it has none. */
  rowOf(id: string): number {
    const r = this.find(id);
    if (r !== undefined) return r;
    const row = this.count++;
    this.ids.set(row, id);
    if (2 * this.count > this.mask + 1) this.grow();
    this.place(row, hashOf(id));
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
    const h = hashOf(id);
    const slots = this.slots;
    for (let i = h & this.mask; ; i = (i + 1) & this.mask) {
      const e = slots[2 * i];
      if (e === 0) return undefined;
      if (slots[2 * i + 1] === h && this.ids.equals(e - 1, id)) {
        this.lastId = id;
        this.lastRow = e - 1;
        return e - 1;
      }
    }
  }

  idAt(row: number): string {
    return this.ids.get(row)!;
  }

  get size(): number {
    return this.count;
  }

  private place(row: number, h: number): void {
    const slots = this.slots;
    let i = h & this.mask;
    while (slots[2 * i] !== 0) i = (i + 1) & this.mask;
    slots[2 * i] = row + 1;
    slots[2 * i + 1] = h;
  }

  /** Doubles the table, placing every row again by its kept hash (the ids are not read). */
  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(2 * old.length);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0) this.place(old[i] - 1, old[i + 1]);
  }
}
