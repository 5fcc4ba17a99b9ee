/**
 * Facts about the run that many invariants need, derived once by the judge from
 * every record before the invariants see it: which key created which payment,
 * what was sent for it, every status observed for each payment and refund (as
 * order-independent spans), the fault windows and the run's end.
 */
import { PAYMENT_STATUSES, REFUND_STATUSES, TERMINAL_STATUSES, type CanonicalPayment, type CanonicalRefund, type PaymentStatus, type RefundStatus } from '../spec/index.ts';
import { type EndRecord, type ExchangeRecord, type FaultRecord, type HistoryRecord, type KeyInfo } from '../history/index.ts';
import { authVariant, createdObjectId, errorCode, is2xx, isApiCall, scopeOf, withoutQuery } from './lib/exchange.ts';
import { sortRows, type Columns } from './lib/columns.ts';
import { RateTable, type RateColumn } from './lib/rate-table.ts';
import { StatusSpans } from './lib/status-spans.ts';
import { PaymentRows } from './lib/payment-rows.ts';
import { PaymentMarks } from './lib/payment-marks.ts';
import { PaymentTable, type PaymentFacts, type PaymentList } from './lib/payment-table.ts';
import { IdemTable, type IdemRare, type IdemRequest } from './lib/idem-table.ts';
import { IdemTuples, type IdemTuple } from './lib/idem-tuples.ts';
import { Uint32Column, Uint8Column, ValueCodes } from './lib/paged-column.ts';
import { hashOf, sortByHash } from './lib/hash-slots.ts';
import { RefundRequestTable, type RefundRequest } from './lib/refund-request-table.ts';
import { RefundTable } from './lib/refund-table.ts';
import { ServerClock } from '../history/server-clock.ts';

export { RATE_COLUMNS, type RateColumn } from './lib/rate-table.ts';
export type { PaymentFacts } from './lib/payment-table.ts';
export type { IdemRequest } from './lib/idem-table.ts';
export type { RefundRequest } from './lib/refund-request-table.ts';
export type { RefundFacts } from './lib/refund-table.ts';

/**
 * The requests of one idempotency tuple, as rows of the ledger's IdemTable: the row alone while its
 * key was used once (most are), else the list.
 */

/** One refund request, by the payment it targets. */

const TERMINAL_LIST: readonly PaymentStatus[] = [...TERMINAL_STATUSES];

/**
 * What an idempotency tuple compares as "the same body". Both refund paths are one operation
 * (src/spec/refund.ts) and send literally different bodies for one refund: the client's refund
 * calls compare as (payment, amount).
 */
export function idemDigestOf(x: Pick<ExchangeRecord, 'op' | 'sent' | 'bodyDigest'>): string | undefined {
  return (x.op === 'refund' || x.op === 'refund_create') && x.sent.paymentId ? `refund:${x.sent.paymentId}:${String(x.sent.amount ?? '')}` : x.bodyDigest;
}

/** The refund path an exchange took: by the path sent (raw requests), else by its operation. */
export function refundPathOf(x: Pick<ExchangeRecord, 'op' | 'sent'>): 'payment' | 'refunds' {
  const path = withoutQuery(x.sent.path ?? '');
  if (path) return path.endsWith('/v1/refunds') ? 'refunds' : 'payment';
  return x.op === 'refund_create' ? 'refunds' : 'payment';
}

/**
 * hostedCard's bits: the card is not known (a submit that got no answer, then another card
 * accepted); so far only a submit that got no answer gave it; an accepted submit gave it.
 */
const HOSTED_CARD_UNKNOWN = 1;
const HOSTED_CARD_UNANSWERED = 2;
const HOSTED_CARD_ACCEPTED = 4;

/** refundOwner's mark of a refund id seen under more than one payment. */
const OWNERS_MANY = 0xffffffff;

/**
 * The ledger's key of a refund: its payment and its id. The spec does not show refund ids, so they
 * may be unique only within their payment (a sequence number, say): refund "1" of two payments
 * is two refunds.
 */
export function refundKey(paymentId: string, id: string): string {
  return `${paymentId}\u0000${id}`;
}


export class Ledger {
  /** One row per payment id, shared by `payments` and `paymentSpans` (one map from id to row for both). */
  readonly paymentRows = new PaymentRows();
  /** The run's payments: those a create of the run answered with. */
  readonly payments = new PaymentTable(this.paymentRows);
  /** One row per refund key (refundKey), shared by `refunds` and `refundSpans`. */
  readonly refundRows = new PaymentRows();
  /** The refunds the run's answers showed, by refundKey. */
  readonly refunds = new RefundTable(this.refundRows, this.paymentRows);
  /** Every status observed per payment id (also payments the run did not create). */
  readonly paymentSpans = new StatusSpans<PaymentStatus>(PAYMENT_STATUSES, this.paymentRows);
  /** Every status observed per refund, by refundKey (payment and refund id). */
  readonly refundSpans = new StatusSpans<RefundStatus>(REFUND_STATUSES, this.refundRows);
  readonly faults: FaultRecord[] = [];
  /** The table rateTables() loads each key's rows into, made at the first call, kept until releaseRateTable(). */
  private rateScratch: Columns<RateColumn> | null = null;
  /** Whether a rateTables() walk is under way (walks do not nest). */
  private rateWalking = false;
  /** Rate-limit samples per key label, on disk but for their last chunk: read them with rateTables(). */
  readonly rate = new Map<string, RateTable>();
  /** The server's clock offset from ours, from the API answers' Date headers. */
  readonly serverClock = new ServerClock();
  /** The idempotent requests, a row each: what the tuples in `tuples` name by row. */
  private readonly idemTable = new IdemTable();
  /**
   * POSTs with an Idempotency-Key, by API key label, then scope, then Idempotency-Key: an index of
   * numbers over `idemTable`'s rows, not a Map by key string (lib/idem-tuples.ts).
   */
  private readonly tuples = new IdemTuples(this.idemTable);
  /** Every refund request in arrival order (`length`, `at(i)`: what the refund-path tally reads incrementally), as columns. */
  readonly refundRequestLog = new RefundRequestTable(this.paymentRows);
  /** Refund requests by payment id (a list made when asked for). */
  readonly refundRequests = this.refundRequestLog.byPayment;
  /**
   * The failure / decline code of each payment's first failed observation, by payment row: 0 while
   * none was seen, 1 for null, else its code in `failureCodeValues` plus 2.
   */
  private readonly failureCodes = new Uint32Column();
  private readonly failureCodeValues = new ValueCodes<string>();
  /** Payments seen waiting on a 3DS challenge (`next_action.reason` three_d_secure), in the order first seen so. */
  readonly threeDs = new PaymentMarks(this.paymentRows);
  end: EndRecord | null = null;
  /** Latest run time any record mentions. */
  lastT = 0;
  records = 0;

  constructor(private readonly keys: ReadonlyMap<string, KeyInfo>) {}

  observe(rec: HistoryRecord): void {
    this.records++;
    switch (rec.kind) {
      case 'exchange':
        return this.onExchange(rec);
      case 'webhook':
        if (rec.tReceived > this.lastT) this.lastT = rec.tReceived;
        // A delivery's snapshot was taken at some time before it arrived (plus a merged shard's clock slack).
        if (rec.payment) this.observePayment(rec.payment, -Infinity, rec.tReceived + (rec.clockSlackMs ?? 0), rec.seq);
        if (rec.refund) this.observeRefund(rec.refund, rec.refund.paymentId, -Infinity, rec.tReceived + (rec.clockSlackMs ?? 0), rec.seq);
        return;
      case 'fault':
        this.faults.push(rec);
        if (rec.tEnd > this.lastT) this.lastT = rec.tEnd;
        return;
      case 'end':
        this.end = rec;
        if (rec.tEnd > this.lastT) this.lastT = rec.tEnd;
        return;
      default:
        return;
    }
  }

  /** Lets go of the table rateTables() loads keys into: after the last rate rule's finish(). */
  releaseRateTable(): void {
    this.rateScratch = null;
  }

  /**
   * Lets go of the lists made for the checks' conclusions (the repeated tuples, the payments by
   * key, the rate rules' table): they are made again when asked. After a run's snapshot (an interim
   * judgement), so that what it listed is not held until the next one.
   */
  dropConclusionLists(): void {
    this.releaseRateTable();
    this.repeated = null;
    this.valueGroups = null;
    this.byKeyCache = null;
  }

  /**
   * The idempotency tuples, each sorted by start, walked in the order their keys were first used.
   * A key used once is kept as its one request (most are): its list is made for the walk and let
   * go after it, so a walk holds no list of every tuple.
   */
  *idemTuples(): Generator<IdemRequest[]> {
    for (const t of this.tupleRows()) yield this.viewsOf(t);
  }
  /** idemTuples as rows of `idemTable`. */
  private *tupleRows(): Generator<IdemTuple> {
    this.sortTuples();
    yield* this.tuples.all();
  }
  /** A tuple's requests as views, in its order. */
  private viewsOf(t: IdemTuple): IdemRequest[] {
    if (!Array.isArray(t)) return [this.idemTable.at(t)];
    const out = new Array<IdemRequest>(t.length);
    for (let i = 0; i < t.length; i++) out[i] = this.idemTable.at(t[i]);
    return out;
  }
  /** Sorts the tuples that got a request since they were last sorted by start (a sort per walk would redo them all). */
  private sortTuples(): void {
    // The last tuple's views were made in the order before.
    if (this.tuples.sortLists()) this.lastTuple.requests = null;
  }

  /** The requests of one idempotency tuple so far, in arrival order (sorted by start once idemTuples() ran). */
  idemRequests(key: string, scope: string, idemKey: string): readonly IdemRequest[] | undefined {
    // Checks mostly ask for the tuple of the record just observed: its views are made once.
    const last = this.lastTuple;
    if (idemKey === last.idemKey && key === last.key && scope === last.scope) return (last.requests ??= this.viewsOf(this.tuples.tupleOf(last.head)));
    const g = this.tuples.findGroup(key, scope);
    const t = g === undefined ? undefined : this.tuples.find(g, idemKey);
    return t === undefined ? undefined : this.viewsOf(t);
  }

  /** The idempotent request in `row` of the ledger's table (IdemRequest.row): a note may keep the row, not the view. */
  idemRequestAt(row: number): IdemRequest {
    return this.idemTable.at(row);
  }

  /** The tuple addIdem last added to (its views made when first asked for). */
  private readonly lastTuple: { key: string; scope: string; idemKey: string | undefined; head: number; requests: IdemRequest[] | null } = { key: '', scope: '', idemKey: undefined, head: 0, requests: null };

  /**
   * The repeated tuples as their heads in `tuples`, not their views nor their rows: a view of every
   * repeated request held from one check's conclusion to the next cost about 200 bytes a request,
   * an array of rows per tuple about 60. Each walk reads the rows and makes the views as it goes.
   */
  private repeated: Uint32Array | null = null;
  /** The tuples used more than once, sorted: the only ones most idempotency checks can judge (most keys are used once). */
  *idemRepeatedTuples(): Generator<IdemRequest[]> {
    if (this.repeated === null) {
      this.sortTuples();
      const heads: number[] = [];
      for (const h of this.tuples.heads()) if (this.tuples.isList(h)) heads.push(h);
      this.repeated = Uint32Array.from(heads);
    }
    for (const h of this.repeated) yield this.viewsOf(this.tuples.tupleOf(h));
  }

  /** idemSharedValues as heads (see `repeated`): each value's tuples' heads. */
  private valueGroups: Uint32Array[] | null = null;
  /**
   * Idempotency-Key values used in more than one tuple (another API key or operation): each value's
   * tuples in the order tuples are walked, the values in the order each was met a second time.
   */
  *idemSharedValues(): Generator<IdemRequest[][]> {
    if (!this.valueGroups) this.valueGroups = this.sharedValueHeads();
    for (const heads of this.valueGroups) yield Array.from(heads, (h) => this.viewsOf(this.tuples.tupleOf(h)));
  }

  /**
   * The heads of the tuples whose values are shared, found by hash: every tuple's value hashed in
   * walk order and sorted stably by hash, so only the tuples whose hash recurs have their values
   * read again and compared. A Map from every value string to its tuple held a string and an
   * entry a tuple (about 700 MB of RSS at 30M records); this holds 16 bytes a tuple for a moment.
   */
  private sharedValueHeads(): Uint32Array[] {
    this.sortTuples();
    const n = this.tuples.size;
    const heads = new Uint32Array(n);
    const hashes = new Uint32Array(n);
    let k = 0;
    for (const h of this.tuples.heads()) {
      heads[k] = h;
      hashes[k++] = hashOf(this.idemTable.idemKeyOf(h));
    }
    const order = sortByHash(hashes);
    const groups: number[][] = [];
    for (let i = 0; i < n; ) {
      let j = i + 1;
      while (j < n && hashes[order[j]] === hashes[order[i]]) j++;
      if (j - i >= 2) {
        // Walk positions by value (equal hashes keep walk order: the sort is stable).
        const byValue = new Map<string, number[]>();
        for (let m = i; m < j; m++) {
          const v = this.idemTable.idemKeyOf(heads[order[m]]);
          const l = byValue.get(v);
          if (l) l.push(order[m]);
          else byValue.set(v, [order[m]]);
        }
        for (const l of byValue.values()) if (l.length >= 2) groups.push(l);
      }
      i = j;
    }
    // A value's group was made when its second tuple was met.
    groups.sort((a, b) => a[1] - b[1]);
    return groups.map((g) => Uint32Array.from(g, (pos) => heads[pos]));
  }

  /** Time the run ended: the end record, or the latest time seen (interrupted history). */
  endTime(): number {
    return this.end?.tEnd ?? this.lastT;
  }

  /**
   * The failure code the payment's first failed representation showed (null: it showed none);
   * undefined when its failure was seen only on a list page, whose canonical form keeps ids and
   * statuses, not codes. A run cut short (a k6 VU interrupted mid-poll, a capped run) may see a
   * decline only there: its code is then unknown, not wrong.
   */
  failureCodeOf(id: string): string | null | undefined {
    const r = this.paymentRows.find(id);
    const c = r === undefined ? 0 : this.failureCodes.get(r);
    return c === 0 ? undefined : c === 1 ? null : this.failureCodeValues.valueOf(c - 2);
  }

  /** Earliest end of an observation showing the payment terminal, and that status. */
  firstTerminal(id: string): { status: PaymentStatus; t: number; seq: number } | null {
    return this.paymentSpans.earliestEndOf(id, TERMINAL_LIST);
  }

  /** firstTerminal of one of the run's payments, its status row looked up once for all the checks that ask. */
  firstTerminalOf(p: PaymentFacts): { status: PaymentStatus; t: number; seq: number } | null {
    return this.paymentSpans.earliestEndAtRow(p.row, TERMINAL_LIST);
  }

  /** paymentsByKey's lists, as rows (a view of every payment held through the checks' conclusions cost about 70 bytes a payment). */
  private byKeyCache: { payments: number; map: Map<string, PaymentList> } | null = null;
  /** The run's payments per creating key, sorted by when their create was answered (cached). */
  paymentsByKey(): ReadonlyMap<string, PaymentList> {
    if (!this.byKeyCache || this.byKeyCache.payments !== this.payments.size) {
      // Typed arrays by registration order, not arrays per key: 16 bytes a payment for a moment (lists
      // of numbers and their sort orders took about 380 MB of RSS at 30M records).
      const n = this.payments.size;
      const keyIndex = new Map<string, number>();
      const keyOf = new Uint32Array(n);
      const rowOf = new Uint32Array(n);
      const ends = new Float64Array(n);
      const counts: number[] = [];
      let i = 0;
      for (const f of this.payments.values()) {
        let k = keyIndex.get(f.key);
        if (k === undefined) {
          keyIndex.set(f.key, (k = counts.length));
          counts.push(0);
        }
        counts[k]++;
        keyOf[i] = k;
        rowOf[i] = f.row;
        ends[i++] = f.tEnd;
      }
      const m = new Map<string, PaymentList>();
      for (const [key, k] of keyIndex) {
        const order = new Uint32Array(counts[k]);
        for (let p = 0, o = 0; p < i; p++) if (keyOf[p] === k) order[o++] = p;
        // Ties keep the order the payments were registered in.
        sortRows(order, ends);
        for (let o = 0; o < order.length; o++) order[o] = rowOf[order[o]];
        m.set(key, this.payments.listOf(order));
      }
      this.byKeyCache = { payments: this.payments.size, map: m };
    }
    return this.byKeyCache.map;
  }

  /**
   * By payment row, what its hosted page's submits said of its card (HOSTED_CARD_* bits): a paged
   * column, not a Set of ids per state (a soak with hosted traffic makes a payment of each).
   */
  private readonly hostedCard = new Uint8Column();
  /**
   * The card of a hosted payment is the one the page accepted: the first submit answered below
   * 400. A refused submit (say 400 over an expired card) charged nothing. A submit that got no
   * answer may or may not have been taken, so a different card accepted after it leaves the card
   * unknown.
   */
  private noteHostedCard(x: ExchangeRecord, id: string): void {
    const f = this.payments.get(id);
    if (!f) return;
    const marks = this.hostedCard.get(f.row);
    if (marks & HOSTED_CARD_UNKNOWN) return;
    if (x.status === 0) {
      if (f.cardOutcome === undefined && f.cardLast4 === undefined) {
        this.payments.setCard(id, x.sent.cardOutcome, x.sent.cardLast4);
        this.hostedCard.set(f.row, marks | HOSTED_CARD_UNANSWERED);
      }
      return;
    }
    if (x.status >= 400) return;
    if (marks & HOSTED_CARD_UNANSWERED) {
      let next = (marks & ~HOSTED_CARD_UNANSWERED) | HOSTED_CARD_ACCEPTED;
      if (f.cardOutcome !== x.sent.cardOutcome || f.cardLast4 !== x.sent.cardLast4) {
        this.payments.setCard(id, undefined, undefined);
        next |= HOSTED_CARD_UNKNOWN;
      }
      this.hostedCard.set(f.row, next);
      return;
    }
    if (marks & HOSTED_CARD_ACCEPTED) return;
    this.payments.setCard(id, x.sent.cardOutcome, x.sent.cardLast4);
    this.hostedCard.set(f.row, marks | HOSTED_CARD_ACCEPTED);
  }

  private onExchange(x: ExchangeRecord): void {
    if (x.tEnd > this.lastT) this.lastT = x.tEnd;
    const scope = scopeOf(x);
    // The request's Idempotency-Key values and its tuple so far, looked up once for the rate replay check and addIdem.
    const group = scope && x.idemKey !== undefined ? this.tuples.groupOf(x.key, scope) : undefined;
    const head = group === undefined ? undefined : this.tuples.findHead(group, x.idemKey!);
    if (isApiCall(x) && authVariant(x) === 'ok' && x.status !== 401) this.addRateSample(x, head === undefined ? undefined : this.tuples.tupleOf(head));
    if (x.date !== undefined && isApiCall(x)) this.serverClock.add(x);
    if (group !== undefined) this.addIdem(x, scope!, x.idemKey!, group, head);
    if (scope === 'refund_create' && x.sent.paymentId) this.addRefundRequest(x, x.sent.paymentId);
    // Any scope is a payment create or a refund create.
    const creation = scope !== undefined && x.status >= 200 && x.status < 300;
    if (creation && scope !== 'refund_create' && x.payment) this.registerPayment(x, x.payment, scope);
    if (x.op === 'submit_hpp' && x.sent.paymentId) this.noteHostedCard(x, x.sent.paymentId);
    // A create's answer (or its replay) shows the status at creation, whenever it arrives.
    // A merged shard's records are known on the merged clock only to within its clock slack.
    const slack = x.clockSlackMs ?? 0;
    const from = creation ? -Infinity : x.tStart - slack;
    const to = x.tEnd + slack;
    if (x.payment) this.observePayment(x.payment, from, to, x.seq);
    if (x.refund) {
      const paymentId = x.refund.paymentId || x.sent.paymentId || '';
      this.observeRefund(x.refund, paymentId, from, to, x.seq);
    }
    if (x.list) {
      const { ids, statuses } = x.list;
      for (let i = 0; i < ids.length; i++) {
        const s = statuses[i]?.toLowerCase() as PaymentStatus | undefined;
        if (ids[i] && s) this.paymentSpans.add(ids[i], s, x.tStart - slack, to, x.seq);
      }
    }
  }

  /** `earlier`: the requests of the exchange's idempotency tuple before it (none without an Idempotency-Key). */
  private addRateSample(x: ExchangeRecord, earlier: IdemTuple | undefined): void {
    let table = this.rate.get(x.key);
    if (!table) this.rate.set(x.key, (table = new RateTable()));
    const r = x.rate;
    // A merged shard's records sit on the merged clock only to within its clock slack: the row
    // spans every time the request may truly have been sent and answered.
    const s = x.clockSlackMs ?? 0;
    if (s > 0 && s > (this.rateSlack.get(x.key) ?? 0)) this.rateSlack.set(x.key, s);
    // A replay carrying the original answer's rate headers says nothing about the current window:
    // its row counts as unplaced (no headers), like an answer without them.
    const replayed = earlier !== undefined && this.replaysRate(x, table, earlier);
    if (replayed) this.replayedRate.add(x.seq);
    if (replayed) table.push(x.seq, x.tStart - s, x.tEnd + s, x.status, NaN, NaN, NaN, x.retryAfter ?? NaN);
    else table.push(x.seq, x.tStart - s, x.tEnd + s, x.status, r?.limit ?? NaN, r?.remaining ?? NaN, r?.reset ?? NaN, x.retryAfter ?? NaN);
  }

  /** Seqs of answers whose rate headers repeat those of the earlier 2xx they replay (few: kept as a set). */
  private readonly replayedRate = new Set<number>();
  /** Per key, the largest clock slack of its rate rows (merged shards; absent = 0). */
  private readonly rateSlack = new Map<string, number>();

  /**
   * Whether the answer's X-RateLimit-* headers are a replay: "same key and same body: the original
   * response is replayed" may replay its headers too (the spec does not say), so a 2xx answer to a
   * same-body repeat of an earlier 2xx under the same (key, operation, Idempotency-Key) whose
   * limit, remaining and reset all equal that earlier answer's is not read as a statement about
   * the current window (RL-5, RL-6, RL-2). RL-4 (headers present) reads the records themselves.
   */
  isReplayedRate(seq: number): boolean {
    return this.replayedRate.has(seq);
  }

  /** The largest clock slack (ms) of a key's rate rows: 0 unless merged shards carried one. */
  rateSlackMs(key: string): number {
    return this.rateSlack.get(key) ?? 0;
  }

  private replaysRate(x: ExchangeRecord, table: RateTable, earlier: IdemTuple): boolean {
    const r = x.rate;
    if (!r || r.limit === null || r.remaining === null || r.reset === null || !is2xx(x.status)) return false;
    const digest = idemDigestOf(x);
    const idem = this.idemTable;
    const rows = Array.isArray(earlier) ? earlier : [earlier];
    for (const q of rows) {
      if (idem.seqOf(q) === x.seq || !is2xx(idem.statusOf(q)) || idem.digestOf(q) !== digest) continue;
      const h = table.headersOfSeq(idem.seqOf(q));
      if (h && h[0] === r.limit && h[1] === r.remaining && h[2] === r.reset) return true;
    }
    return false;
  }


  /**
   * Each key's rate samples as one table in memory, a key at a time, in the order the keys were
   * first used. Every key is loaded into the same table, so the end of a soak holds one key's rows,
   * not every key's; the table a key was given is emptied when the next key is asked for, so read
   * a key's rows (and what is computed from them) before going on.
   */
  *rateTables(): Generator<[key: string, rows: Columns<RateColumn>]> {
    // A walk inside another would refill the table under it: an error, not another key's rows read as this one's.
    if (this.rateWalking) throw new Error('ledger.rateTables() was walked inside another of its walks: every key is loaded into one table, so finish one walk first');
    let most = 0;
    for (const table of this.rate.values()) most = Math.max(most, table.length);
    // One table for every rule too (and the orders and groups lib/rate.ts computes into it), kept until releaseRateTable().
    const into = (this.rateScratch ??= RateTable.emptyTable(most));
    into.reserveRows(most);
    this.rateWalking = true;
    try {
      for (const [key, table] of this.rate) yield [key, table.load(into)];
    } finally {
      this.rateWalking = false;
      // A table kept past its key would read the next key's rows: this one reads as empty instead.
      into.clear();
    }
  }

  /** `group`: the exchange's key and scope in `tuples`; `head`: its tuple's head so far (undefined: a first use). */
  private addIdem(x: ExchangeRecord, scope: string, idemKey: string, group: number, head: number | undefined): void {
    this.valueGroups = null;
    this.repeated = null;
    const rid = x.error?.request_id;
    const code = errorCode(x);
    const type = typeof x.error?.type === 'string' ? x.error.type : null;
    const requestId = typeof rid === 'string' ? rid : undefined;
    const refundPath: IdemRare['refundPath'] = x.op === 'refund' ? 'payment' : x.op === 'refund_create' ? 'refunds' : undefined;
    // A bad-input probe's reference is not one the service keeps (IDEM-10 compares real creates).
    const merchantReference = x.sent.badInput ? undefined : x.sent.merchantReference;
    const badInput = x.sent.badInput !== undefined;
    const errorSig = x.status >= 400 && x.status < 500 ? `${x.status}\u0000${code ?? ''}\u0000${String(x.error?.param ?? '')}\u0000${String(x.error?.message ?? '')}` : undefined;
    const attempt = x.attempt ?? 0;
    const rare =
      code !== null || type !== null || requestId !== undefined || refundPath !== undefined || merchantReference !== undefined || badInput || x.group !== undefined || errorSig !== undefined || attempt !== 0
        ? { code, type, requestId, refundPath, merchantReference, badInput, group: x.group, errorSig, attempt }
        : undefined;
    // Both refund paths are one operation (src/spec/refund.ts) and send literally different
    // bodies for one refund: the client's refund calls compare as (payment, amount).
    const row = this.idemTable.add(x.seq, x.key, scope, idemKey, idemDigestOf(x), x.tStart, x.tEnd, x.status, createdObjectId(x), rare);
    // Most keys are used once: kept as the row alone, a list from the second on.
    this.tuples.add(group, idemKey, row, head);
    const last = this.lastTuple;
    last.key = x.key;
    last.scope = scope;
    last.idemKey = idemKey;
    last.head = head ?? row;
    last.requests = null;
  }

  private addRefundRequest(x: ExchangeRecord, paymentId: string): void {
    const rid = x.error?.request_id;
    this.refundRequestLog.add({
      seq: x.seq,
      key: x.key,
      paymentId,
      tStart: x.tStart,
      tEnd: x.tEnd,
      status: x.status,
      code: errorCode(x),
      type: typeof x.error?.type === 'string' ? x.error.type : null,
      message: x.error?.message,
      requestId: typeof rid === 'string' ? rid : undefined,
      amount: typeof x.sent.amount === 'number' ? x.sent.amount : undefined,
      refundId: is2xx(x.status) ? x.refund?.id : undefined,
      idemKey: x.idemKey,
      path: refundPathOf(x),
      group: x.group,
      badInput: x.sent.badInput !== undefined,
      amountSent: x.sent.amount,
      slack: x.clockSlackMs ?? 0,
    });
  }

  private registerPayment(x: ExchangeRecord, p: CanonicalPayment, scope: string): void {
    if (this.payments.has(p.id)) return;
    const info = this.keys.get(x.key);
    this.payments.register(p.id, {
      key: x.key,
      merchant: info?.merchant,
      mode: info?.mode,
      hosted: scope === 'hosted_create',
      seq: x.seq,
      tStart: x.tStart,
      tEnd: x.tEnd,
      amount: typeof x.sent.amount === 'number' ? x.sent.amount : Number.isFinite(p.amount) ? p.amount : null,
      cardOutcome: x.sent.cardOutcome,
      cardLast4: x.sent.cardLast4,
      created: p.created,
    });
  }

  private observePayment(p: CanonicalPayment, tStart: number, tEnd: number, seq: number): void {
    this.paymentSpans.add(p.id, p.status, tStart, tEnd, seq);
    if (p.status === 'failed') {
      const r = this.paymentRows.rowOf(p.id);
      if (this.failureCodes.get(r) === 0) this.failureCodes.set(r, p.failureCode === null ? 1 : this.failureCodeValues.codeOf(p.failureCode) + 2);
    }
    if (p.nextAction?.reason === 'three_d_secure') this.threeDs.add(p.id);
    if (p.refunds) for (const r of p.refunds) this.observeRefund(r, r.paymentId || p.id, tStart, tEnd, seq);
  }

  /**
   * Per refund id (by its row in `refundIds`, an index of numbers with the ids on disk, not a Map
   * of strings), the row plus one of the one key it was seen under with a payment id; -1 (as
   * 2^32 - 1) once seen under two payments, 0 never.
   */
  private readonly refundIds = new PaymentRows();
  private readonly refundOwner = new Uint32Column();
  /**
   * The key of a refund seen with this payment id (empty when its payload named none): under its
   * payment when known; otherwise under the one payment its id was seen with, if only one.
   */
  private refundKeyOf(paymentId: string, id: string): string {
    if (paymentId) {
      const key = refundKey(paymentId, id);
      const row = this.refundRows.rowOf(key);
      const at = this.refundIds.rowOf(id);
      const owner = this.refundOwner.get(at);
      if (owner === 0) this.refundOwner.set(at, row + 1);
      else if (owner !== OWNERS_MANY && owner !== row + 1) this.refundOwner.set(at, OWNERS_MANY);
      return key;
    }
    const at = this.refundIds.find(id);
    const owner = at === undefined ? 0 : this.refundOwner.get(at);
    return owner === 0 || owner === OWNERS_MANY ? refundKey('', id) : this.refundRows.idAt(owner - 1);
  }

  /** The key of the refund a request was answered with (its payment and the id the answer named). */
  refundKeyOfRequest(q: Pick<RefundRequest, 'paymentId' | 'refundId'>): string | undefined {
    return q.refundId ? refundKey(q.paymentId, q.refundId) : undefined;
  }

  /** `paymentId`: the refund's payment, as its payload or the exchange names it ('' when neither does). */
  private observeRefund(r: CanonicalRefund, paymentId: string, tStart: number, tEnd: number, seq: number): void {
    // A refund payload without its own id (the spec shows only payment_id) names no refund to track.
    if (r.id === '') return;
    const key = this.refundKeyOf(paymentId, r.id);
    this.refundSpans.add(key, r.status, tStart, tEnd, seq);
    this.refunds.observe(key, r.id, paymentId, r.amount, seq);
  }
}
