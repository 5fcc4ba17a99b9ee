/**
 * Exchanges a check keeps to name in evidence at the end, as many as the run makes (a 5xx a
 * declining card got, say: under overload, one a create): what `evidenceRec` keeps of each, as
 * paged columns (old pages on disk: lib/paged-column.ts) rather than an object each in the heap.
 * `at(i)` gives back an EvidenceSource from which `evidence()` makes what the record gave.
 */
import type { ExchangeRecord } from '../../history/index.ts';
import { evidenceRec, type KeptExchange } from './findings.ts';
import { Float64Column, StringColumn } from './paged-column.ts';

export class EvidenceTable {
  private count = 0;
  private readonly seqs = new Float64Column();
  private readonly starts = new Float64Column();
  private readonly ends = new Float64Column();
  private readonly keys = new StringColumn();
  private readonly idemKeys = new StringColumn();
  private readonly requestIds = new StringColumn();
  /** The payment the evidence names (the answer's payment, a refund's payment, or the one sent). */
  private readonly paymentIds = new StringColumn();
  private readonly bodies = new StringColumn();

  get length(): number {
    return this.count;
  }

  /** Keeps the exchange; its index. */
  push(rec: ExchangeRecord): number {
    const k = evidenceRec(rec);
    const i = this.count++;
    this.seqs.set(i, k.seq);
    this.starts.set(i, k.tStart);
    this.ends.set(i, k.tEnd);
    this.keys.set(i, k.key);
    this.idemKeys.set(i, k.idemKey);
    const rid = k.error?.request_id;
    this.requestIds.set(i, typeof rid === 'string' ? rid : undefined);
    this.paymentIds.set(i, k.payment?.id ?? k.refund?.paymentId ?? k.sent.paymentId ?? undefined);
    this.bodies.set(i, k.bodySnippet);
    return i;
  }

  /** Exchange `i` as evidenceRec kept it (what evidence() reads of it). */
  at(i: number): KeptExchange {
    const requestId = this.requestIds.get(i);
    const paymentId = this.paymentIds.get(i);
    const kept: KeptExchange = {
      kind: 'exchange',
      seq: this.seqs.get(i),
      tStart: this.starts.get(i),
      tEnd: this.ends.get(i),
      key: this.keys.get(i)!,
      error: requestId !== undefined ? { request_id: requestId } : null,
      payment: paymentId !== undefined ? { id: paymentId } : null,
      refund: null,
      sent: {},
    };
    const idemKey = this.idemKeys.get(i);
    if (idemKey !== undefined) kept.idemKey = idemKey;
    const body = this.bodies.get(i);
    if (body !== undefined) kept.bodySnippet = body;
    return kept;
  }
}
