/**
 * The refunds the run's answers showed, one row each by its key (refundKey: its payment and its
 * id) in rows shared with the ledger's refund status spans: columns (paged, old pages on disk:
 * lib/paged-column.ts), not an object and a Map entry by key string a refund. What a check is
 * handed is a view of a row.
 */
import { Float64Column, StringColumn, Uint32Column, Uint8Column } from './paged-column.ts';
import type { PaymentRows } from './payment-rows.ts';

export interface RefundFacts {
  /** Row of its key in the table's rows (shared with the refund status spans): a check can keep notes by it. */
  readonly row: number;
  /** Key in `refunds` and `refundSpans` (refundKey). */
  readonly key: string;
  readonly id: string;
  readonly paymentId: string;
  /** null until some answer showed the refund's amount (refund bodies are not shown by the spec). */
  readonly amount: number | null;
  readonly firstSeq: number;
}

const REGISTERED = 1;
const AMOUNT_NULL = 2;

export class RefundTable {
  private count = 0;
  private readonly flags = new Uint8Column();
  /** Rows in the order refunds were first seen (what `values()` follows). */
  private readonly order = new Uint32Column();
  private readonly ids = new StringColumn();
  /** Each refund's payment, as its row in the ledger's payment rows: the id is read back from there, which also spares the lookup a check then makes of that payment. */
  private readonly paymentRowOf = new Uint32Column();
  private readonly amounts = new Float64Column();
  private readonly firstSeqs = new Float64Column();
  /**
   * Each payment's refunds in the order first seen, as a chain: by payment row its first and last
   * refund rows, by refund row the next (all plus one, 0: none), so a check can walk one payment's
   * refunds without a Map of lists by payment id made at the end.
   */
  private readonly firstOfPayment = new Uint32Column();
  private readonly lastOfPayment = new Uint32Column();
  private readonly nextOfPayment = new Uint32Column();

  /** `rows`: refund keys to rows, shared with the refund status spans; `paymentRows`: the ledger's payment rows. */
  constructor(
    readonly rows: PaymentRows,
    private readonly paymentRows: PaymentRows,
  ) {}

  get size(): number {
    return this.count;
  }

  /** Records a refund first seen now; one already recorded only takes an amount it lacked. */
  observe(key: string, id: string, paymentId: string, amount: number | null, seq: number): void {
    const r = this.rows.rowOf(key);
    const f = this.flags.get(r);
    if (f & REGISTERED) {
      if (f & AMOUNT_NULL && amount !== null) {
        this.amounts.set(r, amount);
        this.flags.set(r, REGISTERED);
      }
      return;
    }
    this.flags.set(r, REGISTERED | (amount === null ? AMOUNT_NULL : 0));
    this.order.set(this.count++, r);
    this.ids.set(r, id);
    if (amount !== null) this.amounts.set(r, amount);
    this.firstSeqs.set(r, seq);
    const p = this.paymentRows.rowOf(paymentId);
    this.paymentRowOf.set(r, p);
    const last = this.lastOfPayment.get(p);
    if (last === 0) this.firstOfPayment.set(p, r + 1);
    else this.nextOfPayment.set(last - 1, r + 1);
    this.lastOfPayment.set(p, r + 1);
  }

  /** The refunds of payment `paymentId`, in the order first seen (as `values()` gives them). */
  *refundsOf(paymentId: string): Generator<RefundFacts> {
    const p = this.paymentRows.find(paymentId);
    if (p === undefined) return;
    for (let r = this.firstOfPayment.get(p); r !== 0; r = this.nextOfPayment.get(r - 1)) yield new RefundView(this, r - 1);
  }

  private find(key: string): number | undefined {
    const r = this.rows.find(key);
    return r !== undefined && this.flags.get(r) & REGISTERED ? r : undefined;
  }

  has(key: string): boolean {
    return this.find(key) !== undefined;
  }

  get(key: string): RefundFacts | undefined {
    const r = this.find(key);
    return r === undefined ? undefined : new RefundView(this, r);
  }

  /** Every refund, in the order first seen. */
  *values(): IterableIterator<RefundFacts> {
    for (let i = 0; i < this.count; i++) yield new RefundView(this, this.order.get(i));
  }

  /** @internal the views' reads */
  keyOf(r: number): string {
    return this.rows.idAt(r);
  }
  idOf(r: number): string {
    return this.ids.get(r)!;
  }
  paymentIdOf(r: number): string {
    return this.paymentRows.idAt(this.paymentRowOf.get(r));
  }
  amountOf(r: number): number | null {
    return this.flags.get(r) & AMOUNT_NULL ? null : this.amounts.get(r);
  }
  firstSeqOf(r: number): number {
    return this.firstSeqs.get(r);
  }
}

/** One refund's facts, read from the table's columns when asked. */
class RefundView implements RefundFacts {
  constructor(
    private readonly table: RefundTable,
    readonly row: number,
  ) {}
  get key(): string {
    return this.table.keyOf(this.row);
  }
  get id(): string {
    return this.table.idOf(this.row);
  }
  get paymentId(): string {
    return this.table.paymentIdOf(this.row);
  }
  get amount(): number | null {
    return this.table.amountOf(this.row);
  }
  get firstSeq(): number {
    return this.table.firstSeqOf(this.row);
  }
}
