/**
 * Reads and refunds of a payment that another mode (AUTH-8) or another merchant
 * (SEC-1) owns must get 404 resource_missing; lists must never show it.
 */
import type { ExchangeRecord, KeyInfo } from '../../history/index.ts';
import type { PaymentFacts } from '../ledger.ts';
import type { Invariant, OracleContext } from '../types.ts';
import { errorCode, is2xx, isRefundRequest, withoutBodies } from './exchange.ts';
import { Findings, evidence, show } from './findings.ts';
import { onUnservedRefundPath, servedPath } from './refund-paths.ts';
import { refundPathOf } from '../ledger.ts';

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
      const deferredRefusals: DeferredRefusal[] = [];
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

      return {
        kinds: ['exchange'],
        ops: ['retrieve', 'refund', 'refund_create', 'raw', 'list'],
        onRecord(rec) {
          if (rec.kind !== 'exchange') return;
          const pid = rec.sent.paymentId;
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
          return f.outcome(def.notExercised);
        },
      };
    },
  };
}
