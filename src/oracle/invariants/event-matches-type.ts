import { EVENT_TYPES, statusOfEvent, type CanonicalPayment, type CanonicalRefund, type EventType } from '../../spec/index.ts';

/** Status each event type stands for, computed once. */
const STATUS_OF = new Map<string, string>(EVENT_TYPES.map((t) => [t, statusOfEvent(t as EventType)]));
import type { Invariant, OracleContext } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { residualSkewMs, resetToleranceMs, serverOffsetOf } from '../lib/rate.ts';

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
    const seen = new Milestones();
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
interface Shown {
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
const earlier = (a: Seen | undefined, t: number) => a === undefined || t < a.t;

/** What answers showed of one payment's refunds: only what can only grow. */
interface PaymentMilestones {
  refunded: Frontier | null;
  refunds: Frontier | null;
  refundedAt?: Seen;
  /** Per refund id, when it was first seen succeeded or failed: a list (a payment has few refunds), not a map per payment. */
  final: (Seen & { id: string })[] | null;
}

/**
 * Per payment, the earliest time each monotone milestone was shown: refunded amount ("accumulates
 * across partial refunds"), number of refunds ("all refunds on the payment"), refunded_at set, a
 * refund's status final (pending moves to succeeded or failed). A few numbers per refunded
 * payment, none for the others. A delivery's data.payment showing less than was shown before it
 * was signed is stale, whatever its event's own time: an older event delivered late is still
 * current at delivery time only if nothing changed.
 */
class Milestones {
  private readonly byPayment = new Map<string, PaymentMilestones>();

  private of(id: string): PaymentMilestones {
    let m = this.byPayment.get(id);
    if (!m) this.byPayment.set(id, (m = { refunded: null, refunds: null, refundedAt: undefined, final: null }));
    return m;
  }

  payment(p: CanonicalPayment, t: number, seq: number): void {
    const refunded = typeof p.amountRefunded === 'number' && p.amountRefunded > 0 ? p.amountRefunded : 0;
    const count = p.refunds?.length ?? 0;
    const final = p.refunds?.some((r) => r.status !== 'pending') ?? false;
    if (!refunded && !count && p.refundedAt === null && !final) return;
    const m = this.of(p.id);
    // Only B says its refunded_amount counts succeeded refunds alone (so it never falls); A's amount_refunded may drop when a pending refund fails.
    if (refunded && p.presentation === 'B') m.refunded = raise(m.refunded, refunded, t, seq);
    if (count) m.refunds = raise(m.refunds, count, t, seq);
    if (p.refundedAt !== null && earlier(m.refundedAt, t)) m.refundedAt = { t, seq };
    for (const r of p.refunds ?? []) if (r.id) this.refundFinal(m, r, t, seq);
  }

  refund(paymentId: string, r: CanonicalRefund, t: number, seq: number): void {
    if (!paymentId || !r.id || r.status === 'pending') return;
    this.refundFinal(this.of(paymentId), r, t, seq);
  }

  private refundFinal(m: PaymentMilestones, r: CanonicalRefund, t: number, seq: number): void {
    if (r.status === 'pending') return;
    const known = m.final?.find((x) => x.id === r.id);
    if (!known) (m.final ??= []).push({ id: r.id, t, seq });
    else if (t < known.t) (known.t = t), (known.seq = seq);
  }

  /** What `p` shows earlier than an answer that ended before `cutoff` did, or null. */
  staleness(p: Shown, cutoff: number): { shows: string; seen: string; seq: number } | null {
    const m = this.byPayment.get(p.id);
    if (!m) return null;
    const refunded = shownBefore(m.refunded, cutoff);
    if (refunded && p.refunded !== null && p.refunded < refunded.v) return { shows: `refunded amount ${p.refunded}`, seen: `an answer had shown ${refunded.v}`, seq: refunded.seq };
    const count = shownBefore(m.refunds, cutoff);
    if (count && p.refunds !== null && p.refunds < count.v) return { shows: `${p.refunds} refund(s)`, seen: `an answer had shown ${count.v}`, seq: count.seq };
    if (m.refundedAt && m.refundedAt.t < cutoff && p.refundedAtUnset) return { shows: 'refunded_at null', seen: 'an answer had shown it set', seq: m.refundedAt.seq };
    for (const id of p.pending) {
      const fin = m.final?.find((x) => x.id === id);
      if (fin && fin.t < cutoff) return { shows: `refund ${id} pending`, seen: 'an answer had shown it final', seq: fin.seq };
    }
    return null;
  }
}
