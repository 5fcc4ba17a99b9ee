/**
 * Reads and refunds of a payment that another mode (AUTH-8) or another merchant
 * (SEC-1) owns must get 404 resource_missing; lists must never show it.
 */
import { PAYMENT_STATUSES, REFUND_STATUSES } from '../../spec/index.ts';
import type { ExchangeRecord, KeyInfo } from '../../history/index.ts';
import type { PaymentFacts, RefundRequest } from '../ledger.ts';
import type { Invariant, OracleContext } from '../types.ts';
import { errorCode, is2xx, isRefundRequest, withoutBodies } from './exchange.ts';
import { faultOverlapping } from './faults.ts';
import { Findings, evidence, show } from './findings.ts';
import { observedPayment } from './observations.ts';
import { onUnservedRefundPath, servedPath } from './refund-paths.ts';
import { refundEvidence } from './refunds.ts';
import { refundPathOf } from '../ledger.ts';
import { Float64Column, StringColumn, Uint32Column, Uint8Column, ValueCodes } from './paged-column.ts';
import type { PaymentRows } from './payment-rows.ts';

/** Requests answered before the create that made their payment was recorded are judged at the end (bounded). */
const MAX_DEFERRED = 50_000;
/**
 * Deferred 404s, bounded on their own: most are unknown-id probes whose payment never turns up,
 * and they must not crowd out the requests that could still be violations. Past the bound a 404
 * goes uncounted, which can only lower the count of checks, never hide a violation.
 */
const MAX_DEFERRED_REFUSALS = 200_000;

/**
 * Answers that say nothing about isolation (not answered, rate limited, server error, refused
 * before any lookup). A 403 is judged apart (see `forbidden`): it says nothing only when the key
 * lacks the permission for the operation itself.
 */
function silent(status: number): boolean {
  return status === 0 || status === 429 || status >= 500 || status === 401;
}

/**
 * Payments whose refund effects are remembered (see RefundEffects), bounded: past it a payment
 * seen refunded for the first time is not remembered, which can only lower the count of checks,
 * never make a violation up.
 */
const MAX_EFFECT_PAYMENTS = 200_000;

/**
 * What the run saw refunded on each payment, for judging foreign refunds by their effect: a
 * refund of another merchant's (or mode's) payment answered 5xx, not at all, 429 (or even 404)
 * says nothing by its answer, but if the payment later shows a refund that no request of a key
 * allowed to refund it can account for, the foreign request made it.
 *
 * Per payment seen with a refund, the looks that showed one, as flat rows [t, refunds, total,
 * seq]: t is when the look surely ended (an answer's end, a webhook's arrival, plus clock
 * slack), refunds the entries of `refunds`, total the refunded total. Only rows no other row
 * beats (an earlier or equal end with at least as many refunds and as large a total) are kept,
 * so a payment holds a handful: most one, kept in a paged column by the payment's row, not a
 * Map entry and a list by id.
 */
export class RefundEffects {
  /** By payment row: its first kept look [t, refunds, total, seq] (a paged column: old pages on disk). */
  private readonly first = new Float64Column(4);
  private readonly has = new Uint8Column();
  /** Payments that keep more than one look: all of them, by payment row. */
  private readonly more = new Map<number, number[]>();
  private count = 0;

  constructor(private readonly rows: PaymentRows) {}

  add(id: string, t: number, refunds: number, total: number, seq: number): void {
    if (this.count >= MAX_EFFECT_PAYMENTS) {
      const known = this.rows.find(id);
      if (known === undefined || this.has.get(known) === 0) return;
    }
    const row = this.rows.rowOf(id);
    if (this.has.get(row) === 0) {
      this.count++;
      this.has.set(row, 1);
      this.setFirst(row, t, refunds, total, seq);
      return;
    }
    const r = this.of(id);
    for (let i = 0; i < r.length; i += 4) if (r[i] <= t && r[i + 1] >= refunds && r[i + 2] >= total) return;
    const kept: number[] = [];
    for (let i = 0; i < r.length; i += 4) if (!(t <= r[i] && refunds >= r[i + 1] && total >= r[i + 2])) kept.push(r[i], r[i + 1], r[i + 2], r[i + 3]);
    kept.push(t, refunds, total, seq);
    if (kept.length === 4) {
      this.more.delete(row);
      this.setFirst(row, t, refunds, total, seq);
    } else this.more.set(row, kept);
  }

  of(id: string): readonly number[] {
    const row = this.rows.find(id);
    if (row === undefined || this.has.get(row) === 0) return [];
    const kept = this.more.get(row);
    if (kept) return kept;
    const p = this.first.pageOf(row, false);
    const o = this.first.at(row);
    return [p[o], p[o + 1], p[o + 2], p[o + 3]];
  }

  private setFirst(row: number, t: number, refunds: number, total: number, seq: number): void {
    const p = this.first.pageOf(row, true);
    const o = this.first.at(row);
    p[o] = t;
    p[o + 1] = refunds;
    p[o + 2] = total;
    p[o + 3] = seq;
  }
}

/**
 * A refund request that cannot have refunded anything: refused with a 4xx by a conforming
 * service. Inside a fault window its refusal is not taken as proof (faults excuse odd answers).
 * A 422 (a refund validation failure) moved no money, but "each call adds an entry to the
 * payment's refunds array" may be read as adding a failed entry for it too: it still counts
 * as one possible entry.
 */
function surelyIdle(ctx: OracleContext, q: RefundRequest): boolean {
  return q.status >= 400 && q.status < 500 && !faultOverlapping(ctx.ledger.faults, q.tStart - q.slack, q.tEnd + q.slack);
}

/** The most a request may have refunded: its amount (rounded up), or the whole payment when it named none (or none usable). */
function mostRefunded(q: RefundRequest, owner: PaymentFacts): number {
  return typeof q.amount === 'number' && Number.isFinite(q.amount) && q.amount > 0 ? Math.ceil(q.amount) : (owner.amount ?? Infinity);
}

/** Operations a key's permission covers: reading, or refunding by either path. */
function permissionOf(x: ExchangeRecord): string {
  return isRefundRequest(x) ? 'refund' : x.op;
}

/**
 * A deferred request already answered 404 resource_missing can only ever count as a check, never
 * as a violation: it keeps what deciding that needs, not the record (most deferred requests are
 * unknown-id probes whose payment never turns up).
 */
interface DeferredRefusal {
  paymentId: string;
  key: string;
  /** The refund path it took, or null when not a refund request. */
  refundPath: 'payment' | 'refunds' | null;
}

const REFUND_PATH_CODES = [null, 'payment', 'refunds'] as const;

/** Deferred refusals as columns (a payment id, a key code and a path code each), not an object each: most are unknown-id probes, one per probe. */
class DeferredRefusals {
  length = 0;
  private readonly ids = new StringColumn();
  private readonly keys = new Uint32Column();
  private readonly paths = new Uint8Column();
  private readonly codes = new ValueCodes<string>();

  push(d: DeferredRefusal): void {
    const r = this.length++;
    this.ids.set(r, d.paymentId);
    this.keys.set(r, this.codes.codeOf(d.key));
    this.paths.set(r, REFUND_PATH_CODES.indexOf(d.refundPath));
  }

  *[Symbol.iterator](): IterableIterator<DeferredRefusal> {
    for (let r = 0; r < this.length; r++) yield { paymentId: this.ids.get(r)!, key: this.codes.valueOf(this.keys.get(r))!, refundPath: REFUND_PATH_CODES[this.paths.get(r)] };
  }
}

export function foreignAccessInvariant(def: {
  id: string;
  title: string;
  rules: string[];
  /** Whether the requester may not see the owner's payment; a string says how they differ. */
  foreign(owner: PaymentFacts, requester: KeyInfo): string | null;
  includeLists: boolean;
  notExercised: string;
}): Invariant {
  return {
    id: def.id,
    title: def.title,
    rules: def.rules,
    create(ctx: OracleContext) {
      const f = new Findings();
      const deferred: ExchangeRecord[] = [];
      const deferredRefusals = new DeferredRefusals();
      /**
       * 403 answers to requests naming a payment, judged at the end: a 403 is "the key lacks
       * permission for the operation", so it is silent when the same key was also refused that
       * operation on a payment it may see (its own, or one the run never saw made). Refused only
       * on another's payment, it tells the requester the payment exists: SEC-1 / AUTH-8 want 404.
       */
      const forbidden: ExchangeRecord[] = [];
      /** Listed ids whose payment was not yet known: `listing key label | payment id` -> the list that showed it. */
      const listed = new Map<string, { seq: number; t: number; key: string; id: string }>();
      let listsJudged = 0;
      const effects = new RefundEffects(ctx.ledger.paymentRows);
      /** Earliest start of a refund request that named no payment and was not refused: it may have refunded any payment. */
      let unattributedFrom = Infinity;

      const judgeAccess = (x: ExchangeRecord, owner: PaymentFacts): void => {
        const requester = ctx.keys.get(x.key);
        if (!requester) return;
        const how = def.foreign(owner, requester);
        if (!how) return;
        if (silent(x.status)) return;
        f.check();
        if (x.status === 404 && errorCode(x) === 'resource_missing') return;
        f.violation(
          evidence(`${x.op} of payment ${owner.id} (made by ${owner.key}) with ${x.key} (${how}): expected 404 resource_missing, got ${x.status} ${show(errorCode(x))}`, [x], {
            paymentIds: [owner.id],
            keys: [owner.key],
          }),
        );
      };

      const judgeListed = (l: { seq: number; t: number; key: string; id: string }, owner: PaymentFacts, requester: KeyInfo) => {
        const how = def.foreign(owner, requester);
        if (how) f.violation({ message: `list by ${l.key} showed payment ${l.id} made by ${owner.key} (${how})`, seqs: [l.seq, owner.seq], times: [l.t], keys: [l.key, owner.key], paymentIds: [l.id] });
      };

      /**
       * Foreign refunds judged by their effect (see RefundEffects): for each payment that a key
       * may not refund asked to refund with an answer that is not itself a violation (no answer,
       * 429, 5xx, 401, 403, 404, 405), every later look at the payment must show no more refunds,
       * and no larger refunded total, than the refund requests of the keys that may refund it
       * (its own merchant, its own mode; keys the run does not know) sent before the look ended
       * can account for. Those requests count unless surely idle (a 4xx outside faults); each
       * may have made one refund, of its amount (the whole payment when it named none), and a
       * 422 one entry that moved no money. A look
       * before the foreign request began is not its doing. A foreign refund with no effect is a
       * plain server error: one check, passed.
       */
      const judgeRefundEffects = (): void => {
        const suspects = new Map<string, { owner: PaymentFacts; foreign: RefundRequest[]; allowed: RefundRequest[]; how: string }>();
        for (const [pid, reqs] of ctx.ledger.refundRequests) {
          const owner = ctx.ledger.payments.get(pid);
          if (!owner) continue;
          const allowed: RefundRequest[] = [];
          const foreign: RefundRequest[] = [];
          let how = '';
          for (const q of reqs) {
            const requester = ctx.keys.get(q.key);
            const h = requester ? def.foreign(owner, requester) : null;
            if (!h) {
              if (!surelyIdle(ctx, q) || q.status === 422) allowed.push(q);
            } else if (!is2xx(q.status) && (silent(q.status) || q.status === 403 || q.status === 404 || q.status === 405)) {
              foreign.push(q);
              how ||= h;
            }
          }
          if (foreign.length) suspects.set(pid, { owner, foreign, allowed, how });
        }
        if (!suspects.size) return;
        // Refund ids seen per suspect payment, each by the earliest time a look surely showed it.
        const idSeen = new Map<string, number[]>();
        for (const r of ctx.ledger.refunds.values()) {
          if (!suspects.has(r.paymentId)) continue;
          const first = ctx.ledger.refundSpans.earliestEndOf(r.key, REFUND_STATUSES);
          if (!first || first.t === Infinity) continue;
          let l = idSeen.get(r.paymentId);
          if (!l) idSeen.set(r.paymentId, (l = []));
          l.push(first.t, first.seq);
        }
        for (const [pid, { owner, foreign, allowed, how }] of suspects) {
          foreign.sort((a, b) => a.tStart - a.slack - (b.tStart - b.slack));
          const fFrom = foreign[0].tStart - foreign[0].slack;
          // One check when the payment was looked at surely after a foreign refund began
          // (a 404 resource_missing answer was counted as a check already).
          const lookedAfter = PAYMENT_STATUSES.some((st) => ctx.ledger.paymentSpans.lastStart(pid, st).t > fFrom);
          const rows = effects.of(pid);
          let effectAfter = false;
          for (let i = 0; i < rows.length; i += 4) if (rows[i] > fFrom) effectAfter = true;
          const ids = idSeen.get(pid) ?? [];
          for (let i = 0; i < ids.length; i += 2) if (ids[i] > fFrom) effectAfter = true;
          if ((lookedAfter || effectAfter) && foreign.some((q) => !(q.status === 404 && q.code === 'resource_missing'))) f.check();
          // The looks: [t, refunds, total, seq]; refund ids count as one refund each by when first seen.
          const looks: number[] = [...rows];
          if (ids.length) {
            const times: { t: number; seq: number }[] = [];
            for (let i = 0; i < ids.length; i += 2) times.push({ t: ids[i], seq: ids[i + 1] });
            times.sort((a, b) => a.t - b.t);
            times.forEach((x, n) => looks.push(x.t, n + 1, 0, x.seq));
          }
          for (let i = 0; i < looks.length; i += 4) {
            const [t, refunds, total, seq] = [looks[i], looks[i + 1], looks[i + 2], looks[i + 3]];
            const before = foreign.filter((q) => q.tStart - q.slack < t);
            if (!before.length || unattributedFrom < t) continue;
            let count = 0;
            let amount = 0;
            for (const q of allowed) {
              if (q.tStart - q.slack >= t) continue;
              count++;
              if (!surelyIdle(ctx, q)) amount += mostRefunded(q, owner);
            }
            if (refunds <= count && total <= amount) continue;
            const shown = refunds > count ? `${refunds} refund(s)` : `${total} refunded`;
            const accounted = refunds > count ? `${count} refund request(s)` : `at most ${amount}`;
            f.violation(
              refundEvidence(
                `refund of payment ${pid} (made by ${owner.key}) with ${[...new Set(before.map((q) => q.key))].join(', ')} (${how}) answered ${before.map((q) => q.status).join(', ')}, yet a later look showed ${shown}, where the refund requests of keys that may refund it account for ${accounted}: the foreign refund was carried out`,
                before.slice(0, 4),
                [seq],
              ),
            );
            break;
          }
        }
      };

      return {
        kinds: ['exchange', 'webhook'],
        onRecord(rec) {
          const o = observedPayment(rec);
          if (o && (o.payment.refunds?.length || o.payment.amountRefunded)) {
            const total = o.payment.amountRefunded;
            const t = (o.kind === 'exchange' ? o.tEnd : o.tReceived) + (o.clockSlackMs ?? 0);
            effects.add(o.payment.id, t, o.payment.refunds?.length ?? 0, typeof total === 'number' && Number.isFinite(total) ? total : 0, o.seq);
          }
          if (rec.kind !== 'exchange') return;
          const pid = rec.sent.paymentId;
          if (!pid && isRefundRequest(rec) && !(rec.status >= 400 && rec.status < 500)) unattributedFrom = Math.min(unattributedFrom, rec.tStart - (rec.clockSlackMs ?? 0));
          if (pid && (rec.op === 'retrieve' || rec.op === 'refund' || rec.op === 'refund_create' || rec.op === 'raw')) {
            const owner = ctx.ledger.payments.get(pid);
            const requester = owner ? ctx.keys.get(rec.key) : undefined;
            if (rec.status === 403) {
              if (forbidden.length < MAX_DEFERRED) forbidden.push(withoutBodies(rec));
            } else if (owner && (!requester || !def.foreign(owner, requester))) {
              // The payment's own merchant and mode (or a key the run does not know): nothing to judge, now or later.
            } else if (owner && rec.op === 'retrieve') judgeAccess(rec, owner);
            // Foreign refunds wait for the end, when it is known whether their path is served;
            // requests for a payment not yet known wait for its create. Answers that can never
            // be judged are not kept.
            else if (silent(rec.status)) {
              // nothing to judge, whoever owns the payment
            } else if (rec.status === 404 && errorCode(rec) === 'resource_missing') {
              if (deferredRefusals.length < MAX_DEFERRED_REFUSALS) deferredRefusals.push({ paymentId: pid, key: rec.key, refundPath: isRefundRequest(rec) ? refundPathOf(rec) : null });
            } else if (deferred.length < MAX_DEFERRED) deferred.push(withoutBodies(rec));
          }
          if (def.includeLists && rec.list && is2xx(rec.status)) {
            const requester = ctx.keys.get(rec.key);
            if (!requester) return;
            listsJudged++;
            for (const id of rec.list.ids) {
              const owner = ctx.ledger.payments.get(id);
              if (owner) judgeListed({ seq: rec.seq, t: rec.tStart, key: rec.key, id }, owner, requester);
              else if (listed.size < MAX_DEFERRED) listed.set(`${rec.key}|${id}`, { seq: rec.seq, t: rec.tStart, key: rec.key, id });
            }
          }
        },
        finish() {
          for (const x of deferred) {
            const owner = ctx.ledger.payments.get(x.sent.paymentId!);
            if (owner && !onUnservedRefundPath(ctx, x)) judgeAccess(x, owner);
          }
          const lacksPermission = new Set<string>();
          for (const x of forbidden) {
            const owner = ctx.ledger.payments.get(x.sent.paymentId!);
            const requester = ctx.keys.get(x.key);
            if (!owner || !requester || !def.foreign(owner, requester)) lacksPermission.add(`${x.key}|${permissionOf(x)}`);
          }
          for (const x of forbidden) {
            const owner = ctx.ledger.payments.get(x.sent.paymentId!);
            if (owner && !lacksPermission.has(`${x.key}|${permissionOf(x)}`) && !onUnservedRefundPath(ctx, x)) judgeAccess(x, owner);
          }
          for (const d of deferredRefusals) {
            const owner = ctx.ledger.payments.get(d.paymentId);
            const requester = owner ? ctx.keys.get(d.key) : undefined;
            // What judgeAccess does with a 404 resource_missing answer: count it when the payment was foreign.
            if (owner && requester && def.foreign(owner, requester) && (d.refundPath === null || servedPath(ctx, d.refundPath))) f.check();
          }
          if (def.includeLists) {
            // Lists are exercised only when the run holds payments some listing key may not see.
            const listingKeys = [...ctx.keys.keys()];
            let foreignExists = false;
            for (const label of listingKeys) {
              const requester = ctx.keys.get(label);
              if (!requester) continue;
              for (const p of ctx.ledger.payments.values()) if (def.foreign(p, requester)) (foreignExists = true);
              if (foreignExists) break;
            }
            if (foreignExists) f.check(listsJudged);
            for (const l of listed.values()) {
              const owner = ctx.ledger.payments.get(l.id);
              const requester = ctx.keys.get(l.key);
              if (owner && requester) judgeListed(l, owner, requester);
            }
          }
          judgeRefundEffects();
          return f.outcome(def.notExercised);
        },
      };
    },
  };
}
