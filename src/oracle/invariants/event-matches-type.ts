import { EVENT_TYPES, statusOfEvent, type CanonicalPayment, type CanonicalRefund, type EventType } from '../../spec/index.ts';

/** Status each event type stands for, computed once. */
const STATUS_OF = new Map<string, string>(EVENT_TYPES.map((t) => [t, statusOfEvent(t as EventType)]));
import type { Invariant, OracleContext } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { residualSkewMs, resetToleranceMs, serverOffsetOf } from '../lib/rate.ts';
import { refundKey } from '../ledger.ts';
import { Float64Column, Uint32Column, Uint8Column } from '../lib/paged-column.ts';
import { PaymentRows } from '../lib/payment-rows.ts';

/**
 * WH-7: data.payment is the payment as GET would return it then, so its status matches the event
 * type (likewise data.refund for refund events); and "data.payment is the full current Payment
 * object, as GET /v1/payments/{id} would return it at delivery time", so it shows no earlier state
 * than an answer had already shown before the delivery was signed (see Milestones).
 *
 * When it was signed is the signature's `t`, server time, moved onto our clock with the Date
 * headers' estimate of the server's offset; that estimate is final only at the end (the Date
 * headers seen before a delivery may say otherwise than all of them: a few stale cached Dates,
 * or too few to be tight), so staleness is judged in finish(). While the records stream, only the
 * deliveries that could be stale whatever the offset are kept (a few numbers each): stale against
 * the latest possible cut, their arrival. Records come in completion order (the writer and merge
 * both write them so): an answer read after a delivery ended after it arrived, past that cut.
 */
const invariant: Invariant = {
  id: 'event-matches-type',
  title: "data.payment's status (data.refund's for refund events) matches the event type, and data.payment is current",
  rules: ['WH-7'],
  create(ctx) {
    const f = new Findings();
    const seen = new Milestones(ctx.ledger.paymentRows);
    /** Verified deliveries whose data.payment may be stale, judged with the final clock estimate. */
    const suspects: Suspect[] = [];
    return {
      kinds: ['webhook', 'exchange'],
      onRecord(rec) {
        if (rec.kind === 'exchange') {
          const at = rec.tEnd + (rec.clockSlackMs ?? 0);
          if (rec.payment) seen.payment(rec.payment, at, rec.seq);
          if (rec.refund) seen.refund(rec.refund.paymentId || rec.sent.paymentId || '', rec.refund, at, rec.seq);
          return;
        }
        if (rec.kind !== 'webhook') return;
        const want = rec.type ? STATUS_OF.get(rec.type) : undefined;
        const obj = want === undefined ? null : rec.type!.startsWith('payment.') ? rec.payment : rec.refund;
        if (obj) {
          f.check();
          if (obj.status !== want) f.violation(evidence(`${rec.type} event ${rec.eventId ?? ''} carries ${rec.type!.split('.')[0]} ${obj.id} in status ${obj.status}`, [rec]));
        }
        // Only what the service signed is evidence of what it sent, or of the payment's state.
        const verified = rec.signature === 'ok' || rec.signature === 'stale';
        if (!verified) return;
        if (rec.payment && typeof rec.t === 'number' && Number.isFinite(rec.t)) {
          const shown = snapshotOf(rec.payment);
          const d = { t: rec.t, tReceived: rec.tReceived, slackMs: rec.clockSlackMs ?? 0 };
          // Not stale even against the latest cut any clock estimate can give: never stale.
          if (seen.staleness(shown, latestCut(ctx, d)) !== null) {
            suspects.push({ ...d, seq: rec.seq, type: rec.type, eventId: rec.eventId, counted: obj !== null, shown });
          }
        }
        // What the delivery shows was so when it arrived, whether or not it is current.
        const at = rec.tReceived + (rec.clockSlackMs ?? 0);
        if (rec.payment) seen.payment(rec.payment, at, rec.seq);
        if (rec.refund) seen.refund(rec.refund.paymentId, rec.refund, at, rec.seq);
      },
      finish() {
        for (const d of suspects) {
          const stale = seen.staleness(d.shown, signedNoEarlierThan(ctx, d));
          if (stale === null) continue;
          if (!d.counted) f.check();
          f.violation(
            evidence(`${d.type ?? 'event'} ${d.eventId ?? ''} (signed t=${d.t}) carries payment ${d.shown.id} with ${stale.shows}, but ${stale.seen} (seq ${stale.seq}) before it was signed: data.payment is not the payment as GET would return it at delivery time`, [], {
              seqs: [stale.seq, d.seq],
              times: [Math.round(d.tReceived * 10) / 10],
              paymentIds: [d.shown.id],
            }),
          );
        }
        return f.outcome('no payment or refund event was delivered');
      },
    };
  },
};
export default invariant;

/** What staleness needs of a delivery's signature time and arrival. */
interface Signed {
  /** The signature's t: the server's Unix seconds. */
  t: number;
  tReceived: number;
  /** A merged shard's clock slack (ms). */
  slackMs: number;
}

/** A delivery kept for finish(): a few numbers and what its data.payment showed of the milestones. */
interface Suspect extends Signed {
  seq: number;
  type: string | null;
  eventId: string | null;
  /** Its status check already counted (its data object matched the event type's kind). */
  counted: boolean;
  shown: Shown;
}

/** What a data.payment shows of the values that only grow: no whole payload is kept. */
export interface Shown {
  id: string;
  /** amount_refunded / refunded_amount, when a number. */
  refunded: number | null;
  /** Number of refunds listed, when the payment lists them. */
  refunds: number | null;
  /** refunded_at null in presentation B (A's may stay null). */
  refundedAtUnset: boolean;
  /** Ids of the refunds it shows pending. */
  pending: string[];
}

function snapshotOf(p: CanonicalPayment): Shown {
  return {
    id: p.id,
    refunded: typeof p.amountRefunded === 'number' ? p.amountRefunded : null,
    refunds: p.refunds ? p.refunds.length : null,
    refundedAtUnset: p.refundedAt === null && p.presentation === 'B',
    pending: p.refunds ? p.refunds.filter((r) => r.status === 'pending' && r.id).map((r) => r.id) : [],
  };
}

/**
 * The run time (ms) before which an answer surely ended before this delivery was signed. `t` is
 * the server's Unix seconds: moved onto our clock with the Date headers' final offset estimate,
 * less the tolerance the rate rules use for whole server seconds (a second of rounding, the
 * estimate's uncertainty, residual skew: lib/rate.ts), and a merged shard's clock slack; never
 * later than the latest cut (its arrival). The earlier the cut, the fewer answers a delivery is
 * held to. Read in finish(): with no Date header at all the offset is 0, our clock.
 */
function signedNoEarlierThan(ctx: OracleContext, d: Signed): number {
  const signed = d.t * 1000 - serverOffsetOf(ctx).offsetMs - ctx.epochMs(0) - resetToleranceMs(ctx) - d.slackMs;
  return Math.min(signed, latestCut(ctx, d));
}

/** The latest cut any clock estimate can give: the delivery was signed before it arrived. */
function latestCut(ctx: OracleContext, d: Signed): number {
  return d.tReceived - residualSkewMs(ctx) - d.slackMs;
}

/** Values that only grow, each with the earliest time (answer end, ms) some answer showed it. */
interface Seen {
  t: number;
  seq: number;
}
/**
 * Values shown with when (v, t, seq), none beaten by another (a larger or equal value shown no
 * later), by t: flat triples in one array of numbers (a refunded payment holds one or two), not an
 * object each in a list of its own.
 */
type Frontier = number[];

/** `fr` with (v, t, seq) added (a new array when `fr` is null: most payments never need one). */
function raise(fr: Frontier | null, v: number, t: number, seq: number): Frontier {
  if (fr === null) return [v, t, seq];
  for (let i = 0; i < fr.length; i += 3) if (fr[i] >= v && fr[i + 1] <= t) return fr;
  for (let i = fr.length - 3; i >= 0; i -= 3) if (fr[i] <= v && fr[i + 1] >= t) fr.splice(i, 3);
  let i = fr.length;
  while (i > 0 && fr[i - 2] > t) i -= 3;
  fr.splice(i, 0, v, t, seq);
  return fr;
}
/** The largest value shown by an answer that ended before `cutoff`. */
function shownBefore(fr: Frontier | null, cutoff: number): { v: number; seq: number } | null {
  if (fr === null) return null;
  let best = -1;
  for (let i = 0; i < fr.length; i += 3) if (fr[i + 1] < cutoff) best = i;
  return best < 0 ? null : { v: fr[best], seq: fr[best + 2] };
}

/** Triples a frontier's slot in FrontierColumn's `wide` holds; a longer frontier is kept in its Map. */
const WIDE_TRIPLES = 4;

/**
 * One kind of frontier by payment row: one triple (most) in a column of three values; two to
 * WIDE_TRIPLES in a slot of a column of their own, given when a frontier first outgrows one (a
 * payment refunded a few times); longer ones in a Map. Paged columns, old pages on disk.
 */
class FrontierColumn {
  private readonly one = new Float64Column(3);
  /** By payment row: its slot in `wide` plus one (0: none). */
  private readonly slotOf = new Uint32Column();
  /** By slot: how many triples it holds (0: the frontier is in `more`), then the triples. */
  private readonly wide = new Float64Column(1 + 3 * WIDE_TRIPLES);
  private slots = 0;
  private readonly more = new Map<number, Frontier>();

  /** The frontier of a row that has one. */
  get(r: number): Frontier {
    const s = this.slotOf.get(r);
    if (s === 0) {
      const p = this.one.pageOf(r, false);
      const o = this.one.at(r);
      return [p[o], p[o + 1], p[o + 2]];
    }
    const p = this.wide.pageOf(s - 1, false);
    const o = this.wide.at(s - 1);
    const n = p[o];
    if (n === 0) return this.more.get(r)!;
    return Array.from(p.subarray(o + 1, o + 1 + 3 * n));
  }

  set(r: number, fr: Frontier): void {
    let s = this.slotOf.get(r);
    if (s === 0 && fr.length === 3) {
      const p = this.one.pageOf(r, true);
      const o = this.one.at(r);
      p[o] = fr[0];
      p[o + 1] = fr[1];
      p[o + 2] = fr[2];
      return;
    }
    if (s === 0) this.slotOf.set(r, (s = ++this.slots));
    const p = this.wide.pageOf(s - 1, true);
    const o = this.wide.at(s - 1);
    if (fr.length > 3 * WIDE_TRIPLES) {
      p[o] = 0;
      this.more.set(r, fr);
      return;
    }
    if (p[o] === 0) this.more.delete(r);
    p[o] = fr.length / 3;
    p.set(fr, o + 1);
  }
}

/** Flags of a payment row in Milestones. */
const SEEN = 1;
const REFUNDED = 2;
const REFUNDS = 4;
const REFUNDED_AT = 8;

/**
 * Per payment, the earliest time each monotone milestone was shown: refunded amount ("accumulates
 * across partial refunds"), number of refunds ("all refunds on the payment"), refunded_at set, a
 * refund's status final (pending moves to succeeded or failed). A few numbers per refunded
 * payment, none for the others. A delivery's data.payment showing less than was shown before it
 * was signed is stale, whatever its event's own time: an older event delivered late is still
 * current at delivery time only if nothing changed.
 *
 * Kept by the payment's row in the ledger's payment rows, in paged columns (old pages on disk):
 * a frontier of one triple (most) in a column of three values, a longer one in a Map by row; a
 * refund's first final look by its key (payment and refund id) in rows of its own. Not an object,
 * lists and a Map entry by id a refunded payment.
 */
export class Milestones {
  private readonly flags = new Uint8Column();
  private readonly refunded = new FrontierColumn();
  private readonly refunds = new FrontierColumn();
  /** When refunded_at was first shown set: [t, seq]. */
  private readonly refundedAt = new Float64Column(2);
  /** By refund key (refundKey of payment and refund id): when first shown final, [t, seq]; 1 in `finalSeen`. */
  private readonly finalRows = new PaymentRows();
  private readonly finalSeen = new Uint8Column();
  private readonly final = new Float64Column(2);

  constructor(private readonly rows: PaymentRows) {}

  private frontier(col: FrontierColumn, flag: number, r: number): Frontier | null {
    return (this.flags.get(r) & flag) === 0 ? null : col.get(r);
  }

  private setFrontier(col: FrontierColumn, flag: number, r: number, fr: Frontier): void {
    this.flags.set(r, this.flags.get(r) | flag);
    col.set(r, fr);
  }

  /** The payment's row, marked seen. */
  private of(id: string): number {
    const r = this.rows.rowOf(id);
    const f = this.flags.get(r);
    if ((f & SEEN) === 0) this.flags.set(r, f | SEEN);
    return r;
  }

  payment(p: CanonicalPayment, t: number, seq: number): void {
    const refunded = typeof p.amountRefunded === 'number' && p.amountRefunded > 0 ? p.amountRefunded : 0;
    const count = p.refunds?.length ?? 0;
    const final = p.refunds?.some((r) => r.status !== 'pending') ?? false;
    if (!refunded && !count && p.refundedAt === null && !final) return;
    const r = this.of(p.id);
    // Only B says its refunded_amount counts succeeded refunds alone (so it never falls); A's amount_refunded may drop when a pending refund fails.
    if (refunded && p.presentation === 'B') this.setFrontier(this.refunded, REFUNDED, r, raise(this.frontier(this.refunded, REFUNDED, r), refunded, t, seq));
    if (count) this.setFrontier(this.refunds, REFUNDS, r, raise(this.frontier(this.refunds, REFUNDS, r), count, t, seq));
    if (p.refundedAt !== null) {
      const f = this.flags.get(r);
      const at = this.refundedAt.pageOf(r, false);
      const o = this.refundedAt.at(r);
      if ((f & REFUNDED_AT) === 0 || t < at[o]) {
        const w = this.refundedAt.pageOf(r, true);
        w[o] = t;
        w[o + 1] = seq;
        this.flags.set(r, f | REFUNDED_AT);
      }
    }
    for (const x of p.refunds ?? []) if (x.id) this.refundFinal(p.id, x, t, seq);
  }

  refund(paymentId: string, r: CanonicalRefund, t: number, seq: number): void {
    if (!paymentId || !r.id || r.status === 'pending') return;
    this.of(paymentId);
    this.refundFinal(paymentId, r, t, seq);
  }

  private refundFinal(paymentId: string, r: CanonicalRefund, t: number, seq: number): void {
    if (r.status === 'pending') return;
    const k = this.finalRows.rowOf(refundKey(paymentId, r.id));
    const p = this.final.pageOf(k, true);
    const o = this.final.at(k);
    if (this.finalSeen.get(k) === 0) {
      this.finalSeen.set(k, 1);
      p[o] = t;
      p[o + 1] = seq;
    } else if (t < p[o]) (p[o] = t), (p[o + 1] = seq);
  }

  /** What `p` shows earlier than an answer that ended before `cutoff` did, or null. */
  staleness(p: Shown, cutoff: number): { shows: string; seen: string; seq: number } | null {
    const r = this.rows.find(p.id);
    if (r === undefined || (this.flags.get(r) & SEEN) === 0) return null;
    const refunded = shownBefore(this.frontier(this.refunded, REFUNDED, r), cutoff);
    if (refunded && p.refunded !== null && p.refunded < refunded.v) return { shows: `refunded amount ${p.refunded}`, seen: `an answer had shown ${refunded.v}`, seq: refunded.seq };
    const count = shownBefore(this.frontier(this.refunds, REFUNDS, r), cutoff);
    if (count && p.refunds !== null && p.refunds < count.v) return { shows: `${p.refunds} refund(s)`, seen: `an answer had shown ${count.v}`, seq: count.seq };
    if (this.flags.get(r) & REFUNDED_AT && p.refundedAtUnset) {
      const at = this.refundedAt.pageOf(r, false);
      const o = this.refundedAt.at(r);
      if (at[o] < cutoff) return { shows: 'refunded_at null', seen: 'an answer had shown it set', seq: at[o + 1] };
    }
    for (const id of p.pending) {
      const k = this.finalRows.find(refundKey(p.id, id));
      if (k === undefined || this.finalSeen.get(k) === 0) continue;
      const fp = this.final.pageOf(k, false);
      const o = this.final.at(k);
      if (fp[o] < cutoff) return { shows: `refund ${id} pending`, seen: 'an answer had shown it final', seq: fp[o + 1] };
    }
    return null;
  }
}
