/**
 * Recording: each answered exchange becomes one history record, built after the caller has
 * been answered (or handed raw to the history writer's worker), in completion order.
 */
import { type CanonicalPayment, type ExchangeResult, type Operation } from '../spec/index.ts';
import { HISTORY_VERSION, type ExchangeRecord, type Sent } from '../history/index.ts';
import { failureRecord, readHeaderFields, responseRecord, type ExchangeMeta, type ExchangeOffload } from '../history/exchange-record.ts';
import type { LeakScanner } from '../history/leak-scanner.ts';
import { headersObject, type FailureKind, type RawResponse } from './transport.ts';

/** Where results are recorded (the ClientFactory): the sink, the leak scanner, the offload, the queue of pending records. */
export interface Recorder {
  readonly offload: ExchangeOffload | undefined;
  readonly scanner: LeakScanner;
  readonly sink: (record: ExchangeRecord) => void;
  /** Builds and writes every pending record, in completion order. */
  flushDeferred(): void;
}

/**
 * One exchange's outcome. Its history record is built after the caller has
 * been answered (see ClientFactory.flushDeferred), so a load loop sends its next
 * request while the record of the last one is still being written; reading
 * `record`, `body` or `payment` builds it (and every earlier pending one) first.
 */
export class Result implements ExchangeResult {
  private headerCache: Record<string, string> | null = null;
  private built: ExchangeRecord | null = null;
  private parsedBody: unknown = null;
  private parsedPayment: CanonicalPayment | null = null;
  private error: unknown = null;
  /** Seq of a record handed over raw (offload), built here only if read; 0 when not handed over. */
  private handedSeq = 0;

  constructor(
    private readonly f: Recorder,
    private meta: ExchangeMeta | null,
    private readonly tEnd: number,
    private raw: RawResponse | null,
    private readonly failure: FailureKind | null,
    readonly status: number,
  ) {}

  /** Builds and writes the record (once); called in completion order by the factory. */
  build(): void {
    if (this.built || this.error || this.handedSeq) return;
    const off = this.f.offload;
    if (off) {
      // Offload: the worker builds and writes it; keep what is needed to build it here if read.
      try {
        const raw = this.raw;
        const meta = this.meta!;
        this.handedSeq = off.writeCapture({ meta, tEnd: this.tEnd, status: this.status, picked: raw ? raw.picked : null, body: raw ? raw.body : '', failure: raw ? null : (this.failure ?? 'other') }, (seq) => {
          // A listener may read the view at once: the record must know its seq before.
          this.handedSeq = seq;
          return raw === null ? failureRecord(meta, this.tEnd, this.failure ?? 'other', seq) : (new RecordView(this, meta, this.tEnd, raw, seq) as unknown as ExchangeRecord);
        });
      } catch (err) {
        this.error = err;
        this.meta = null;
      }
      return;
    }
    try {
      this.built = this.parse();
      this.f.sink(this.built);
    } catch (err) {
      this.error = err;
      this.built = null;
    }
    this.meta = null;
  }

  /** The error building or writing the record raised, if any. */
  get failedWith(): unknown {
    return this.error === null ? undefined : this.error;
  }

  private ensure(): void {
    if (!this.built && !this.error && !this.handedSeq) this.f.flushDeferred();
    if (this.handedSeq && !this.built && !this.error) this.buildLocal();
    if (this.error) throw this.error;
  }

  /** The record of an exchange handed over raw, built here (same inputs, same record) because a scenario reads it. */
  private buildLocal(): void {
    this.built = this.parse();
    this.built.seq = this.handedSeq;
    this.meta = null;
  }

  /** The record from what was kept of the exchange (and the parsed body and payment scenarios read). */
  private parse(): ExchangeRecord {
    if (this.raw === null) return failureRecord(this.meta!, this.tEnd, this.failure ?? 'other');
    const parsed = responseRecord(this.meta!, this.tEnd, this.raw, this.f.scanner);
    this.parsedBody = parsed.body;
    this.parsedPayment = parsed.payment;
    return parsed.record;
  }

  get record(): ExchangeRecord {
    this.ensure();
    return this.built!;
  }
  get body(): unknown {
    this.ensure();
    return this.parsedBody;
  }
  get payment(): CanonicalPayment | null {
    this.ensure();
    return this.parsedPayment;
  }
  /** Built on first use: the hot path never needs the full header map. */
  get headers(): Record<string, string> {
    return (this.headerCache ??= this.raw ? headersObject(this.raw.rawHeaders) : {});
  }
}


/**
 * What live listeners get for an exchange whose record the history writer's
 * worker builds: the fields known without the body are plain properties; the
 * body-derived ones (json, error, payment, refund, list, shape problems, leaks,
 * snippet) build the record here, once, when first read (shared with the
 * Result). Reads like the record the worker writes; `toJSON` gives that record.
 */
class RecordView {
  readonly v = HISTORY_VERSION;
  readonly kind = 'exchange' as const;
  readonly seq: number;
  readonly scenario: string;
  readonly group?: string;
  readonly op: Operation;
  readonly key: string;
  readonly idemKey?: string;
  readonly bodyDigest?: string;
  readonly sent: Sent;
  readonly attempt?: number;
  readonly tIntended: number;
  readonly tStart: number;
  readonly tEnd: number;
  readonly wall: number;
  readonly status: number;
  // Written by readHeaderFields in the constructor, as for every recorded answer.
  readonly contentType!: string | null;
  readonly rate!: ExchangeRecord['rate'];
  readonly retryAfter!: number | null;
  readonly retryAfterRaw?: string;
  readonly date?: number;
  readonly location?: string;
  readonly failure = null;
  readonly #result: Result;
  readonly #body: string;

  constructor(result: Result, meta: ExchangeMeta, tEnd: number, raw: RawResponse, seq: number) {
    this.#result = result;
    this.#body = raw.body;
    this.seq = seq;
    this.scenario = meta.scenario;
    if (meta.group !== undefined) this.group = meta.group;
    this.op = meta.op;
    this.key = meta.key;
    if (meta.idemKey !== undefined) this.idemKey = meta.idemKey;
    if (meta.bodyDigest !== undefined) this.bodyDigest = meta.bodyDigest;
    this.sent = meta.sent;
    if (meta.attempt !== undefined) this.attempt = meta.attempt;
    this.tIntended = meta.tIntended;
    this.tStart = meta.tStart;
    this.tEnd = tEnd;
    this.wall = meta.wall;
    this.status = raw.status;
    readHeaderFields(this, raw.picked, meta.wall);
  }

  get json(): boolean {
    return this.#result.record.json;
  }
  get error(): ExchangeRecord['error'] {
    return this.#result.record.error;
  }
  get payment(): ExchangeRecord['payment'] {
    return this.#result.record.payment;
  }
  get refund(): ExchangeRecord['refund'] {
    return this.#result.record.refund;
  }
  get list(): ExchangeRecord['list'] {
    return this.#result.record.list;
  }
  get shapeProblems(): ExchangeRecord['shapeProblems'] {
    return this.#result.record.shapeProblems;
  }
  get leaks(): ExchangeRecord['leaks'] {
    return this.#result.record.leaks;
  }
  get bodySnippet(): ExchangeRecord['bodySnippet'] {
    return this.#result.record.bodySnippet;
  }
  toJSON(): ExchangeRecord {
    return this.#result.record;
  }
  /** False when the raw body cannot hold a `livemode` of true (no record needs building to know). */
  mayCarryLivemodeTrue(): boolean {
    return LIVEMODE_TRUE.test(this.#body);
  }
}

/**
 * `"livemode": true` as it appears in JSON: a key of that name with the literal true. Inside a
 * string value the quotes would be escaped, so text such as a description cannot match.
 */
const LIVEMODE_TRUE = /"livemode"\s*:\s*true/;

/**
 * Whether an exchange's response carried livemode true: on its payment, or on any payment of
 * a list page. For a record built on the history worker (offload) the raw body is looked at
 * first, so the check builds the record here only when the body names livemode true.
 */
export function carriesLivemodeTrue(r: ExchangeRecord): boolean {
  if (r instanceof RecordView && !r.mayCarryLivemodeTrue()) return false;
  return r.payment?.livemode === true || r.list?.livemodes.includes(true) === true;
}
