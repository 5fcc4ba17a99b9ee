/**
 * One row number per payment id, shared by the ledger's tables of payments (its facts, its status
 * spans): one map from id to row for all of them, not one per table, and rows that columns and
 * pages can hold by number. Rows are given in the order ids are first asked for and never move.
 */
import { RefColumn } from './paged-column.ts';

export class PaymentRows {
  private readonly byId = new Map<string, number>();
  /** Row -> id, in pages (a growing array would copy itself and hold up to half again its length). */
  private readonly ids = new RefColumn<string>();
  private count = 0;

  /** The id's row, given it now if it has none. */
  rowOf(id: string): number {
    let r = this.byId.get(id);
    if (r === undefined) {
      r = this.count++;
      this.byId.set(id, r);
      this.ids.set(r, id);
    }
    return r;
  }

  /** The id's row, undefined while it has none. */
  find(id: string): number | undefined {
    return this.byId.get(id);
  }

  idAt(row: number): string {
    return this.ids.get(row)!;
  }

  get size(): number {
    return this.count;
  }
}
