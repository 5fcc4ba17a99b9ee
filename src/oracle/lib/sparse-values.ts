/**
 * Values few rows of a table have (an error's code, type, message and request id, a probe's marks,
 * a merchant reference), by row and field: a paged string column a field (old pages on disk:
 * lib/paged-column.ts) and one byte a row saying which fields the row has, so a row without any
 * reads that byte alone. A value that is not a string (null, a number, an object: a probe's odd
 * input) goes in a Map by row, as few rows have one.
 *
 * An object a row for the rows with any of them held each in the heap to the end of the run, and
 * under faults or overload most answers carry an error: a real soak's idempotent requests grew the
 * heap by a few hundred bytes each.
 */
import { StringColumn, Uint8Column } from './paged-column.ts';

export class SparseValues<K extends string> {
  /** By row: a bit for each field set (at most eight fields). */
  private readonly present = new Uint8Column();
  private readonly strings: StringColumn[];
  private readonly others: Map<number, unknown>[];
  private readonly bit: Record<K, number>;

  constructor(readonly fields: readonly K[]) {
    if (fields.length > 8) throw new Error(`SparseValues holds at most eight fields, got ${fields.length}`);
    this.strings = fields.map(() => new StringColumn());
    this.others = fields.map(() => new Map<number, unknown>());
    this.bit = Object.fromEntries(fields.map((f, i) => [f, i])) as Record<K, number>;
  }

  /** Sets `field` of `row` (undefined: left unset). Rows are set as they arrive, each field once. */
  set(row: number, field: K, value: unknown): void {
    if (value === undefined) return;
    const i = this.bit[field];
    if (typeof value === 'string') this.strings[i].set(row, value);
    else this.others[i].set(row, value);
    this.present.set(row, this.present.get(row) | (1 << i));
  }

  /** `field` of `row`, undefined when it was not set. */
  get(row: number, field: K): unknown {
    const i = this.bit[field];
    if ((this.present.get(row) & (1 << i)) === 0) return undefined;
    const s = this.strings[i].get(row);
    return s !== undefined ? s : this.others[i].get(row);
  }

  /** A string `field` of `row` (undefined when unset or not a string). */
  string(row: number, field: K): string | undefined {
    const v = this.get(row, field);
    return typeof v === 'string' ? v : undefined;
  }
}
