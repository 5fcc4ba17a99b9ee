/**
 * The run's payments (those a create of the run answered with), as the ledger keeps them: a
 * column per fact, by the payment's row in the ledger's PaymentRows, not an object per payment.
 * A soak makes millions of payments; an object of twelve fields with its boxed times cost about
 * 200 bytes each and a map entry, the columns about 70 and no object for the collector to trace.
 * What a check is handed is a view of one row: reading a field reads its column.
 */
import type { CardOutcome } from '../../spec/index.ts';
import { Float64Column, Uint32Column, Uint8Column, ValueCodes } from './paged-column.ts';
import type { PaymentRows } from './payment-rows.ts';

export interface PaymentFacts {
  readonly id: string;
  /** Label of the key whose create answered with it. */
  readonly key: string;
  readonly merchant: string | undefined;
  readonly mode: 'test' | 'live' | undefined;
  /** Created on the hosted page (POST /v1/payments/hpp). */
  readonly hosted: boolean;
  /** The create exchange that first answered with it. */
  readonly seq: number;
  readonly tStart: number;
  readonly tEnd: number;
  /** Amount sent (or, failing that, returned). */
  readonly amount: number | null;
  readonly cardOutcome: CardOutcome | undefined;
  readonly cardLast4: string | undefined;
  /** `created` (Unix seconds) as first returned. */
  readonly created: number | null;
  /** Its row in the ledger's payment rows, which its status spans share: rows never move. */
  readonly row: number;
}

/** What registering a payment records (its id and row come from the table). */
export type NewPayment = Omit<PaymentFacts, 'id' | 'row'>;

const REGISTERED = 1;
const HOSTED = 2;
const AMOUNT_NULL = 4;
const CREATED_NULL = 8;
/** A record from outside the types (no `created` at all) reads back as it was. */
const CREATED_UNDEFINED = 16;

export class PaymentTable {
  private readonly flags = new Uint8Column();
  /** Registered rows in the order they were registered: what values() walks. */
  private readonly order = new Uint32Column();
  private count = 0;
  private readonly seqs = new Float64Column();
  private readonly starts = new Float64Column();
  private readonly ends = new Float64Column();
  private readonly amounts = new Float64Column();
  private readonly createds = new Float64Column();
  private readonly keys = new Uint32Column();
  private readonly merchants = new Uint32Column();
  private readonly modes = new Uint32Column();
  private readonly outcomes = new Uint32Column();
  private readonly last4s = new Uint32Column();
  /** One code table for every string column: a run has a handful of keys, merchants, modes and cards. */
  private readonly codes = new ValueCodes<string>();

  constructor(readonly rows: PaymentRows) {}

  get size(): number {
    return this.count;
  }

  /** Records a payment; a payment already registered keeps what it has. */
  register(id: string, p: NewPayment): void {
    const r = this.rows.rowOf(id);
    if (this.flags.get(r) & REGISTERED) return;
    this.flags.set(r, REGISTERED | (p.hosted ? HOSTED : 0) | (p.amount === null ? AMOUNT_NULL : 0) | (p.created === null ? CREATED_NULL : p.created === undefined ? CREATED_UNDEFINED : 0));
    this.order.set(this.count++, r);
    this.seqs.set(r, p.seq);
    this.starts.set(r, p.tStart);
    this.ends.set(r, p.tEnd);
    if (p.amount !== null) this.amounts.set(r, p.amount);
    if (typeof p.created === 'number') this.createds.set(r, p.created);
    this.keys.set(r, this.codes.codeOf(p.key));
    this.merchants.set(r, this.codes.codeOf(p.merchant));
    this.modes.set(r, this.codes.codeOf(p.mode));
    this.outcomes.set(r, this.codes.codeOf(p.cardOutcome));
    this.last4s.set(r, this.codes.codeOf(p.cardLast4));
  }

  /** The row of a registered payment, undefined for any other id. */
  private find(id: string): number | undefined {
    const r = this.rows.find(id);
    return r !== undefined && this.flags.get(r) & REGISTERED ? r : undefined;
  }

  has(id: string): boolean {
    return this.find(id) !== undefined;
  }

  get(id: string): PaymentFacts | undefined {
    const r = this.find(id);
    return r === undefined ? undefined : new PaymentView(this, r);
  }

  /** Every registered payment, in the order they were registered. */
  *values(): IterableIterator<PaymentFacts> {
    for (let i = 0; i < this.count; i++) yield new PaymentView(this, this.order.get(i));
  }

  /** Registered payments' rows as a list of their facts (the views made as it is read). */
  listOf(rows: Uint32Array): PaymentList {
    return new PaymentList(this, rows);
  }

  /** Sets the card a registered payment was made with (a hosted payment's card is known from its page). */
  setCard(id: string, outcome: CardOutcome | undefined, last4: string | undefined): void {
    const r = this.find(id);
    if (r === undefined) return;
    this.outcomes.set(r, this.codes.codeOf(outcome));
    this.last4s.set(r, this.codes.codeOf(last4));
  }

  /** @internal the views' reads */
  idOf(r: number): string {
    return this.rows.idAt(r);
  }
  keyOf(r: number): string {
    return this.codes.valueOf(this.keys.get(r))!;
  }
  merchantOf(r: number): string | undefined {
    return this.codes.valueOf(this.merchants.get(r));
  }
  modeOf(r: number): 'test' | 'live' | undefined {
    return this.codes.valueOf(this.modes.get(r)) as 'test' | 'live' | undefined;
  }
  hostedOf(r: number): boolean {
    return (this.flags.get(r) & HOSTED) !== 0;
  }
  seqOf(r: number): number {
    return this.seqs.get(r);
  }
  startOf(r: number): number {
    return this.starts.get(r);
  }
  endOf(r: number): number {
    return this.ends.get(r);
  }
  amountOf(r: number): number | null {
    return this.flags.get(r) & AMOUNT_NULL ? null : this.amounts.get(r);
  }
  outcomeOf(r: number): CardOutcome | undefined {
    return this.codes.valueOf(this.outcomes.get(r)) as CardOutcome | undefined;
  }
  last4Of(r: number): string | undefined {
    return this.codes.valueOf(this.last4s.get(r));
  }
  createdOf(r: number): number | null {
    const f = this.flags.get(r);
    if (f & CREATED_UNDEFINED) return undefined as unknown as null;
    return f & CREATED_NULL ? null : this.createds.get(r);
  }
}

/** Some registered payments in an order of the caller's: rows, each read as a view when reached. */
export class PaymentList implements Iterable<PaymentFacts> {
  constructor(
    private readonly table: PaymentTable,
    private readonly rows: Uint32Array,
  ) {}
  *[Symbol.iterator](): IterableIterator<PaymentFacts> {
    for (let i = 0; i < this.rows.length; i++) yield new PaymentView(this.table, this.rows[i]);
  }
}

/** One payment's facts, read from the table's columns when asked. */
class PaymentView implements PaymentFacts {
  /** The id, read once: an old page's id is made from its bytes each time the table is asked. */
  private idRead: string | undefined = undefined;
  constructor(
    private readonly table: PaymentTable,
    readonly row: number,
  ) {}
  get id(): string {
    return (this.idRead ??= this.table.idOf(this.row));
  }
  get key(): string {
    return this.table.keyOf(this.row);
  }
  get merchant(): string | undefined {
    return this.table.merchantOf(this.row);
  }
  get mode(): 'test' | 'live' | undefined {
    return this.table.modeOf(this.row);
  }
  get hosted(): boolean {
    return this.table.hostedOf(this.row);
  }
  get seq(): number {
    return this.table.seqOf(this.row);
  }
  get tStart(): number {
    return this.table.startOf(this.row);
  }
  get tEnd(): number {
    return this.table.endOf(this.row);
  }
  get amount(): number | null {
    return this.table.amountOf(this.row);
  }
  get cardOutcome(): CardOutcome | undefined {
    return this.table.outcomeOf(this.row);
  }
  get cardLast4(): string | undefined {
    return this.table.last4Of(this.row);
  }
  get created(): number | null {
    return this.table.createdOf(this.row);
  }
}
