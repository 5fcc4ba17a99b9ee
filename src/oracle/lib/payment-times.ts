/**
 * The earliest time noted for each of some payments (when a customer first acted on it, when its
 * form was first submitted), by its row in the ledger's payment rows: paged columns, old pages on
 * disk, not a Map by id that grows with every payment of a soak. A payment the ledger has no row
 * for yet (no answer showed it: its create was not recorded) is noted by id, in a Map that stays
 * small: a check finds rows and never gives one, so the rows stay in the order the ledger gives
 * them whichever checks run.
 */
import { Float64Column, Uint8Column } from './paged-column.ts';
import type { PaymentRows } from './payment-rows.ts';

export class EarliestByPayment {
  private readonly noted = new Uint8Column();
  private readonly times = new Float64Column();
  private readonly byId = new Map<string, number>();

  constructor(private readonly rows: PaymentRows) {}

  /** Notes time `t` for the payment, kept if it is the earliest so far. */
  note(id: string, t: number): void {
    const row = this.rows.find(id);
    if (row === undefined) {
      const was = this.byId.get(id);
      if (was === undefined || t < was) this.byId.set(id, t);
    } else if (this.noted.get(row) === 0 || t < this.times.get(row)) {
      this.noted.set(row, 1);
      this.times.set(row, t);
    }
  }

  /** The earliest time noted for the payment, undefined when none was. */
  get(id: string): number | undefined {
    const row = this.rows.find(id);
    const a = row !== undefined && this.noted.get(row) === 1 ? this.times.get(row) : undefined;
    const b = this.byId.get(id);
    return a === undefined ? b : b === undefined || a <= b ? a : b;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }
}
