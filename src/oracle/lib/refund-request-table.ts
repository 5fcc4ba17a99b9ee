/**
 * The ledger's refund requests, one row each in arrival order: a soak makes one or more for many
 * of its payments. A column per field (paged, old pages on disk: lib/paged-column.ts), not an
 * object of eighteen fields a request (about 200 bytes, with a list per payment and a log of them
 * all), and what few requests carry (an error's code, type, message and request id; an amount sent
 * that is not a number) as sparse columns (lib/sparse-values.ts). A payment's requests are a
 * chain of rows by its row in the ledger's payment rows, not a list in a Map by id. What a check is
 * handed is a view of a row.
 */
import { Float64Column, StringColumn, Uint32Column, Uint8Column, ValueCodes } from './paged-column.ts';
import { SparseValues } from './sparse-values.ts';
import type { PaymentRows } from './payment-rows.ts';

/** One refund request (either path), as refund rules need it. */
export interface RefundRequest {
  readonly seq: number;
  readonly key: string;
  readonly paymentId: string;
  readonly tStart: number;
  readonly tEnd: number;
  readonly status: number;
  readonly code: string | null;
  readonly type: string | null;
  readonly message: unknown;
  readonly requestId: string | undefined;
  /** Amount sent; undefined = the remaining refundable amount. */
  readonly amount: number | undefined;
  readonly refundId: string | undefined;
  readonly idemKey: string | undefined;
  /** Which refund path it took: `payment` = POST /v1/payments/{id}/refund, `refunds` = POST /v1/refunds. */
  readonly path: 'payment' | 'refunds';
  /** The run's exchange group (e.g. `refund-path-discovery`, `bad-input`). */
  readonly group: string | undefined;
  /** A bad-input probe (sent.badInput): refused by design, judged by the bad-input invariants. */
  readonly badInput: boolean;
  /** The amount as sent, whatever its type (bad-input probes send strings and fractions). */
  readonly amountSent: unknown;
  /** A merged shard's clock slack, ms (0 for one clock): its times may be off the merged clock by that much. */
  readonly slack: number;
}

const AMOUNT_NUMBER = 1;
const PATH_REFUNDS = 2;
const BAD_INPUT = 4;

export class RefundRequestTable {
  private count = 0;
  private readonly seqs = new Float64Column();
  private readonly starts = new Float64Column();
  private readonly ends = new Float64Column();
  private readonly statuses = new Float64Column();
  private readonly slacks = new Float64Column();
  private readonly amounts = new Float64Column();
  private readonly flags = new Uint8Column();
  /** API key labels and groups, as codes. */
  private readonly codes = new ValueCodes<string>();
  private readonly keys = new Uint32Column();
  private readonly groups = new Uint32Column();
  /** The request's payment, as its row in the ledger's payment rows. */
  private readonly payRows = new Uint32Column();
  private readonly refundIds = new StringColumn();
  private readonly idemKeys = new StringColumn();
  /**
   * What few requests carry, a field a row that has it: an error's code, type, message and request
   * id, and the amount sent when it is not a number (nor absent). Under faults most answers carry an
   * error, and an object a request held the heap to the end.
   */
  private readonly rare = new SparseValues(['code', 'type', 'message', 'requestId', 'amountSent'] as const);
  /** The next request row of the same payment, plus one (0: the last). */
  private readonly next = new Uint32Column();
  /** By payment row: its first and last request rows, plus one (0: none). */
  private readonly firstOf = new Uint32Column();
  private readonly lastOf = new Uint32Column();
  /** Payment rows in the order of their first request (what iterating `byPayment` follows). */
  private readonly paymentOrder = new Uint32Column();
  private payments = 0;
  /** The requests by payment id, as the Map it replaces read them. */
  readonly byPayment: RefundRequestsByPayment;

  constructor(private readonly rows: PaymentRows) {
    this.byPayment = new RefundRequestsByPayment(this, rows);
  }

  /** Requests added. */
  get length(): number {
    return this.count;
  }

  add(q: RefundRequest): void {
    const r = this.count++;
    const pr = this.rows.rowOf(q.paymentId);
    this.seqs.set(r, q.seq);
    this.starts.set(r, q.tStart);
    this.ends.set(r, q.tEnd);
    this.statuses.set(r, q.status);
    this.slacks.set(r, q.slack);
    const numeric = typeof q.amountSent === 'number';
    if (numeric) this.amounts.set(r, q.amountSent as number);
    this.flags.set(r, (numeric ? AMOUNT_NUMBER : 0) | (q.path === 'refunds' ? PATH_REFUNDS : 0) | (q.badInput ? BAD_INPUT : 0));
    this.keys.set(r, this.codes.codeOf(q.key));
    this.groups.set(r, this.codes.codeOf(q.group));
    this.payRows.set(r, pr);
    this.refundIds.set(r, q.refundId);
    this.idemKeys.set(r, q.idemKey);
    const v = this.rare;
    if (q.code !== null) v.set(r, 'code', q.code);
    if (q.type !== null) v.set(r, 'type', q.type);
    v.set(r, 'message', q.message);
    v.set(r, 'requestId', q.requestId);
    if (!numeric) v.set(r, 'amountSent', q.amountSent);
    const last = this.lastOf.get(pr);
    if (last === 0) {
      this.firstOf.set(pr, r + 1);
      this.paymentOrder.set(this.payments++, pr);
    } else this.next.set(last - 1, r + 1);
    this.lastOf.set(pr, r + 1);
  }

  /** A view of request `row` (arrival order). */
  at(row: number): RefundRequest {
    return new RefundView(this, row);
  }

  /** The requests of payment row `pr`, in arrival order (undefined: none). */
  requestsOfRow(pr: number): RefundRequest[] | undefined {
    let r = this.firstOf.get(pr);
    if (r === 0) return undefined;
    const out: RefundRequest[] = [];
    for (; r !== 0; r = this.next.get(r - 1)) out.push(new RefundView(this, r - 1));
    return out;
  }

  /** Payments with requests. */
  get paymentCount(): number {
    return this.payments;
  }

  /** The payment row of the i-th payment to have a request. */
  paymentRowAt(i: number): number {
    return this.paymentOrder.get(i);
  }

  /** @internal the views' reads */
  seqOf(r: number): number {
    return this.seqs.get(r);
  }
  keyOf(r: number): string {
    return this.codes.valueOf(this.keys.get(r))!;
  }
  paymentIdOf(r: number): string {
    return this.rows.idAt(this.payRows.get(r));
  }
  startOf(r: number): number {
    return this.starts.get(r);
  }
  endOf(r: number): number {
    return this.ends.get(r);
  }
  statusOf(r: number): number {
    return this.statuses.get(r);
  }
  slackOf(r: number): number {
    return this.slacks.get(r);
  }
  amountOf(r: number): number | undefined {
    return this.flags.get(r) & AMOUNT_NUMBER ? this.amounts.get(r) : undefined;
  }
  amountSentOf(r: number): unknown {
    return this.flags.get(r) & AMOUNT_NUMBER ? this.amounts.get(r) : this.rare.get(r, 'amountSent');
  }
  pathOf(r: number): 'payment' | 'refunds' {
    return this.flags.get(r) & PATH_REFUNDS ? 'refunds' : 'payment';
  }
  badInputOf(r: number): boolean {
    return (this.flags.get(r) & BAD_INPUT) !== 0;
  }
  groupOf(r: number): string | undefined {
    return this.codes.valueOf(this.groups.get(r));
  }
  refundIdOf(r: number): string | undefined {
    return this.refundIds.get(r);
  }
  idemKeyOf(r: number): string | undefined {
    return this.idemKeys.get(r);
  }
  codeOf(r: number): string | null {
    return this.rare.string(r, 'code') ?? null;
  }
  typeOf(r: number): string | null {
    return this.rare.string(r, 'type') ?? null;
  }
  messageOf(r: number): unknown {
    return this.rare.get(r, 'message');
  }
  requestIdOf(r: number): string | undefined {
    return this.rare.string(r, 'requestId');
  }
}

/** The requests by payment id, read as a Map of lists (each list made when asked for). */
export class RefundRequestsByPayment {
  constructor(
    private readonly table: RefundRequestTable,
    private readonly rows: PaymentRows,
  ) {}

  get size(): number {
    return this.table.paymentCount;
  }

  get(paymentId: string): RefundRequest[] | undefined {
    const pr = this.rows.find(paymentId);
    return pr === undefined ? undefined : this.table.requestsOfRow(pr);
  }

  has(paymentId: string): boolean {
    return this.get(paymentId) !== undefined;
  }

  *entries(): IterableIterator<[string, RefundRequest[]]> {
    for (let i = 0; i < this.table.paymentCount; i++) {
      const pr = this.table.paymentRowAt(i);
      yield [this.rows.idAt(pr), this.table.requestsOfRow(pr)!];
    }
  }

  *values(): IterableIterator<RefundRequest[]> {
    for (let i = 0; i < this.table.paymentCount; i++) yield this.table.requestsOfRow(this.table.paymentRowAt(i))!;
  }

  *keys(): IterableIterator<string> {
    for (let i = 0; i < this.table.paymentCount; i++) yield this.rows.idAt(this.table.paymentRowAt(i));
  }

  [Symbol.iterator](): IterableIterator<[string, RefundRequest[]]> {
    return this.entries();
  }
}

/** One request, read from the table's columns when asked. */
class RefundView implements RefundRequest {
  constructor(
    private readonly table: RefundRequestTable,
    readonly row: number,
  ) {}
  get seq(): number {
    return this.table.seqOf(this.row);
  }
  get key(): string {
    return this.table.keyOf(this.row);
  }
  get paymentId(): string {
    return this.table.paymentIdOf(this.row);
  }
  get tStart(): number {
    return this.table.startOf(this.row);
  }
  get tEnd(): number {
    return this.table.endOf(this.row);
  }
  get status(): number {
    return this.table.statusOf(this.row);
  }
  get code(): string | null {
    return this.table.codeOf(this.row);
  }
  get type(): string | null {
    return this.table.typeOf(this.row);
  }
  get message(): unknown {
    return this.table.messageOf(this.row);
  }
  get requestId(): string | undefined {
    return this.table.requestIdOf(this.row);
  }
  get amount(): number | undefined {
    return this.table.amountOf(this.row);
  }
  get refundId(): string | undefined {
    return this.table.refundIdOf(this.row);
  }
  get idemKey(): string | undefined {
    return this.table.idemKeyOf(this.row);
  }
  get path(): 'payment' | 'refunds' {
    return this.table.pathOf(this.row);
  }
  get group(): string | undefined {
    return this.table.groupOf(this.row);
  }
  get badInput(): boolean {
    return this.table.badInputOf(this.row);
  }
  get amountSent(): unknown {
    return this.table.amountSentOf(this.row);
  }
  get slack(): number {
    return this.table.slackOf(this.row);
  }
}
