/**
 * The ledger's POSTs with an Idempotency-Key, one row each in arrival order: a soak makes millions,
 * most a first 2xx create. A column per field, not an object per request (about 136 bytes with its
 * boxed times); the refund path, a probe's mark and the attempt as bits of a number, and the rarer
 * fields (an error, a probe's group, a merchant reference) as sparse columns (lib/sparse-values.ts).
 * What a check is handed is a view of a row.
 */
import { Float64Column, StringColumn, Uint32Column, ValueCodes } from './paged-column.ts';
import { SparseValues } from './sparse-values.ts';

/** One POST that carried an Idempotency-Key, as idempotency rules need it. */
export interface IdemRequest {
  seq: number;
  key: string;
  scope: string;
  idemKey: string;
  digest: string | undefined;
  tStart: number;
  tEnd: number;
  status: number;
  code: string | null;
  type: string | null;
  requestId: string | undefined;
  /** Payment or refund id of a 2xx answer. */
  objectId: string | undefined;
  /** Which refund path a refund request took (absent for other operations). */
  refundPath?: 'payment' | 'refunds';
  attempt: number;
  merchantReference: unknown;
  /** A bad-input probe (sent.badInput): its body is invalid on purpose. */
  badInput: boolean;
  /** The run's exchange group (paystorm's own probes name theirs, e.g. `idem-diff-payment`). */
  group: string | undefined;
  /** For a 4xx answer: status, code, param and message, to tell a kept error replayed under a new request_id. */
  errorSig: string | undefined;
  /** Its row in the ledger's table of idempotent requests (Ledger.idemRequestAt gives it back). */
  readonly row: number;
}

/**
 * What few idempotent requests carry (an error, a refund path, a probe's marks, a retry), as the
 * ledger hands it to `add`. The refund path, the bad-input mark and the attempt are kept as bits of
 * a number per row (every refund request has a path, every retry an attempt); the rest as sparse
 * columns, a field a row that has it.
 */
export interface IdemRare {
  code: string | null;
  type: string | null;
  requestId: string | undefined;
  refundPath: 'payment' | 'refunds' | undefined;
  merchantReference: unknown;
  badInput: boolean;
  group: string | undefined;
  errorSig: string | undefined;
  attempt: number;
}

/** The bits of IdemTable's `marks`: the refund path (two bits), the bad-input mark, an attempt kept apart (`oddAttempts`), then the attempt. */
const PATH_PAYMENT = 1;
const PATH_REFUNDS = 2;
const PATH_MASK = 3;
const BAD_INPUT = 4;
const ATTEMPT_IN_RARE = 8;
const ATTEMPT_UNIT = 16;
/** The largest attempt the 32 bits hold beside the marks (a larger or odd one is kept apart). */
const MAX_MARKED_ATTEMPT = 2 ** 28 - 1;

export class IdemTable {
  private count = 0;
  private readonly seqs = new Float64Column();
  private readonly starts = new Float64Column();
  private readonly ends = new Float64Column();
  private readonly statuses = new Float64Column();
  /** API key labels and scopes: a handful of each, as codes. */
  private readonly codes = new ValueCodes<string>();
  private readonly keys = new Uint32Column();
  private readonly scopes = new Uint32Column();
  private readonly idemKeys = new StringColumn();
  private readonly digests = new StringColumn();
  private readonly objectIds = new StringColumn();
  /** Refund path, bad-input mark and attempt, as bits (see MARKS). */
  private readonly marks = new Uint32Column();
  /**
   * By row: the rarer fields of the requests that have them. Under faults most answers carry an
   * error (and its request id), so an object a request that had one held the heap to the end.
   */
  private readonly rare = new SparseValues(['code', 'type', 'requestId', 'merchantReference', 'group', 'errorSig'] as const);
  /** Attempts the marks cannot hold (not a whole number, or past MAX_MARKED_ATTEMPT): a client's odd retry counter. */
  private readonly oddAttempts = new Map<number, number>();

  get size(): number {
    return this.count;
  }

  /** Adds a request; its row. */
  add(seq: number, key: string, scope: string, idemKey: string, digest: string | undefined, tStart: number, tEnd: number, status: number, objectId: string | undefined, rare: IdemRare | undefined): number {
    const r = this.count++;
    this.seqs.set(r, seq);
    this.keys.set(r, this.codes.codeOf(key));
    this.scopes.set(r, this.codes.codeOf(scope));
    this.idemKeys.set(r, idemKey);
    this.digests.set(r, digest);
    this.starts.set(r, tStart);
    this.ends.set(r, tEnd);
    this.statuses.set(r, status);
    this.objectIds.set(r, objectId);
    if (rare !== undefined) {
      const fits = Number.isInteger(rare.attempt) && rare.attempt >= 0 && rare.attempt <= MAX_MARKED_ATTEMPT;
      this.marks.set(r, (rare.refundPath === 'payment' ? PATH_PAYMENT : rare.refundPath === 'refunds' ? PATH_REFUNDS : 0) | (rare.badInput ? BAD_INPUT : 0) | (fits ? rare.attempt * ATTEMPT_UNIT : ATTEMPT_IN_RARE));
      if (!fits) this.oddAttempts.set(r, rare.attempt);
      const v = this.rare;
      if (rare.code !== null) v.set(r, 'code', rare.code);
      if (rare.type !== null) v.set(r, 'type', rare.type);
      v.set(r, 'requestId', rare.requestId);
      v.set(r, 'merchantReference', rare.merchantReference);
      v.set(r, 'group', rare.group);
      v.set(r, 'errorSig', rare.errorSig);
    }
    return r;
  }

  /** A view of the request in `row`. */
  at(row: number): IdemRequest {
    return new IdemView(this, row);
  }

  /** Sorts rows by when they started (then by seq), as a tuple's requests are walked. */
  sortRows(rows: number[]): void {
    rows.sort((a, b) => this.starts.get(a) - this.starts.get(b) || this.seqs.get(a) - this.seqs.get(b));
  }

  /** @internal the views' reads */
  seqOf(r: number): number {
    return this.seqs.get(r);
  }
  keyOf(r: number): string {
    return this.codes.valueOf(this.keys.get(r))!;
  }
  scopeOf(r: number): string {
    return this.codes.valueOf(this.scopes.get(r))!;
  }
  idemKeyOf(r: number): string {
    return this.idemKeys.get(r)!;
  }
  /** Whether row `r`'s Idempotency-Key is `idemKey` (without making a string of a row on disk). */
  idemKeyIs(r: number, idemKey: string): boolean {
    return this.idemKeys.equals(r, idemKey);
  }
  digestOf(r: number): string | undefined {
    return this.digests.get(r);
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
  objectIdOf(r: number): string | undefined {
    return this.objectIds.get(r);
  }
  codeOf(r: number): string | null {
    return this.rare.string(r, 'code') ?? null;
  }
  typeOf(r: number): string | null {
    return this.rare.string(r, 'type') ?? null;
  }
  requestIdOf(r: number): string | undefined {
    return this.rare.string(r, 'requestId');
  }
  merchantReferenceOf(r: number): unknown {
    return this.rare.get(r, 'merchantReference');
  }
  groupOf(r: number): string | undefined {
    return this.rare.string(r, 'group');
  }
  errorSigOf(r: number): string | undefined {
    return this.rare.string(r, 'errorSig');
  }
  refundPathOf(r: number): 'payment' | 'refunds' | undefined {
    const m = this.marks.get(r) & PATH_MASK;
    return m === PATH_PAYMENT ? 'payment' : m === PATH_REFUNDS ? 'refunds' : undefined;
  }
  badInputOf(r: number): boolean {
    return (this.marks.get(r) & BAD_INPUT) !== 0;
  }
  attemptOf(r: number): number {
    const m = this.marks.get(r);
    return m & ATTEMPT_IN_RARE ? this.oddAttempts.get(r)! : Math.floor(m / ATTEMPT_UNIT);
  }
}

/** One request, read from the table's columns when asked. */
class IdemView implements IdemRequest {
  constructor(
    private readonly table: IdemTable,
    readonly row: number,
  ) {}
  get seq(): number {
    return this.table.seqOf(this.row);
  }
  get key(): string {
    return this.table.keyOf(this.row);
  }
  get scope(): string {
    return this.table.scopeOf(this.row);
  }
  get idemKey(): string {
    return this.table.idemKeyOf(this.row);
  }
  get digest(): string | undefined {
    return this.table.digestOf(this.row);
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
  get objectId(): string | undefined {
    return this.table.objectIdOf(this.row);
  }
  get code(): string | null {
    return this.table.codeOf(this.row);
  }
  get type(): string | null {
    return this.table.typeOf(this.row);
  }
  get requestId(): string | undefined {
    return this.table.requestIdOf(this.row);
  }
  get refundPath(): 'payment' | 'refunds' | undefined {
    return this.table.refundPathOf(this.row);
  }
  get merchantReference(): unknown {
    return this.table.merchantReferenceOf(this.row);
  }
  get badInput(): boolean {
    return this.table.badInputOf(this.row);
  }
  get group(): string | undefined {
    return this.table.groupOf(this.row);
  }
  get errorSig(): string | undefined {
    return this.table.errorSigOf(this.row);
  }
  get attempt(): number {
    return this.table.attemptOf(this.row);
  }
}
