/**
 * Some of the run's payments, marked by their row in the ledger's payment rows and listed in the
 * order first marked: a paged column of marks and one of rows (old pages on disk), read as a Set of
 * ids (has, iteration), not a Set holding an id string per payment.
 */
import { Uint32Column, Uint8Column } from './paged-column.ts';
import type { PaymentRows } from './payment-rows.ts';

export class PaymentMarks implements Iterable<string> {
  private readonly marked = new Uint8Column();
  private readonly order = new Uint32Column();
  private count = 0;

  constructor(private readonly rows: PaymentRows) {}

  add(id: string): void {
    const r = this.rows.rowOf(id);
    if (this.marked.get(r) === 1) return;
    this.marked.set(r, 1);
    this.order.set(this.count++, r);
  }

  has(id: string): boolean {
    const r = this.rows.find(id);
    return r !== undefined && this.marked.get(r) === 1;
  }

  get size(): number {
    return this.count;
  }

  /** The ids in the order first marked. */
  *[Symbol.iterator](): IterableIterator<string> {
    for (let i = 0; i < this.count; i++) yield this.rows.idAt(this.order.get(i));
  }
}
