import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { REFUND_SCOPES, checkDifferentBody, checkErrorsNotKept, checkInFlight, checkIndependentScopes, checkReplay, checkSingleObject, idemEvidence, inconclusive, runTupleCheck } from '../lib/idempotency.ts';
import type { IdemRequest, RefundRequest } from '../ledger.ts';
import { is2xx } from '../lib/exchange.ts';
import { servedPath } from '../lib/refund-paths.ts';
import { Float64Column, Uint32Column, Uint8Column } from '../lib/paged-column.ts';

/** What the cross-path check keeps of a refund request that carried an Idempotency-Key. */
interface PathRequest {
  req: IdemRequest;
  path: 'payment' | 'refunds';
  paymentId: string;
  amount: unknown;
}

/**
 * REF-7: refund create is idempotent in its own scope; IDEM-3..9 apply to it (both refund paths
 * are one operation, src/spec/refund.ts). Besides the IDEM checks over the refund scope: the
 * same Idempotency-Key and the same refund (payment and amount) sent on the other path after a
 * 2xx must not create a second refund. (The ledger compares the client's refund requests as
 * payment and amount, so the IDEM-3 replay check also wants the other path to replay, not 409.)
 */
const invariant: Invariant = {
  id: 'refund-idempotency',
  title: 'Refund create is idempotent under its own operation scope (IDEM-3 to IDEM-9 for refunds, both paths one operation)',
  rules: ['REF-7'],
  create(ctx) {
    const f = new Findings();
    /**
     * Which refund each refund request with an Idempotency-Key asked for, by its row in the
     * ledger's idempotent requests (its path is the row's refundPath): paged columns, not a Map
     * entry and an object per refund request. `asked`: 1 a numeric amount (in `amounts`), 2 any
     * other (in `oddAmounts`, bad-input probes). The payment as its row in the ledger's payment rows.
     */
    const rows = ctx.ledger.paymentRows;
    const asked = new Uint8Column();
    const paymentRowOf = new Uint32Column();
    const amounts = new Float64Column();
    const oddAmounts = new Map<number, unknown>();
    const askedOf = (r: IdemRequest): Omit<PathRequest, 'req'> | undefined => {
      const a = asked.get(r.row);
      if (a === 0 || r.refundPath === undefined) return undefined;
      return { path: r.refundPath, paymentId: rows.idAt(paymentRowOf.get(r.row)), amount: a === 1 ? amounts.get(r.row) : oddAmounts.get(r.row) };
    };
    /**
     * Answers that showed a payment with more refunds than the refund requests (one per API key
     * and Idempotency-Key) known when they were judged: checked again at the end, when requests
     * still in flight at that moment are in too.
     */
    const crowded: { paymentId: string; refunds: number; tEnd: number; seq: number }[] = [];
    /** Refund requests that may have made a refund: answered 2xx, not answered, or 5xx (a refusal, 4xx, made none). */
    const mayHaveMade = (q: RefundRequest) => q.status < 400 || q.status >= 500;
    const tupleOf = (q: RefundRequest) => (q.idemKey === undefined ? `#${q.seq}` : `${q.key}\u0000${q.idemKey}`);
    /**
     * Per payment read with refunds, by its payment row: how many of its refund requests were
     * counted so far, and how many distinct tuples they make (no time filter: a cheap upper
     * bound). Columns of numbers: a request's tuple is new when no earlier counted one has it.
     */
    const scannedOf = new Uint32Column();
    const distinctOf = new Uint32Column();
    const tuplesSoFar = (paymentId: string): number => {
      const reqs = ctx.ledger.refundRequests.get(paymentId);
      if (!reqs) return 0;
      const row = rows.find(paymentId)!;
      let scanned = scannedOf.get(row);
      let distinct = distinctOf.get(row);
      if (scanned === reqs.length) return distinct;
      for (; scanned < reqs.length; scanned++) {
        const q = reqs[scanned];
        if (!mayHaveMade(q)) continue;
        let seen = false;
        if (q.idemKey !== undefined) for (let i = 0; i < scanned && !seen; i++) seen = mayHaveMade(reqs[i]) && reqs[i].idemKey === q.idemKey && reqs[i].key === q.key;
        if (!seen) distinct++;
      }
      scannedOf.set(row, scanned);
      distinctOf.set(row, distinct);
      return distinct;
    };
    /** Distinct refund requests sent for a payment before `t` (each on its own shard's clock slack) that may have made a refund. */
    const requestsBefore = (paymentId: string, t: number): number => {
      const tuples = new Set<string>();
      for (const q of ctx.ledger.refundRequests.get(paymentId) ?? []) if (q.tStart - q.slack < t && mayHaveMade(q)) tuples.add(tupleOf(q));
      return tuples.size;
    };
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange') return;
        // Each refund call adds one entry to the payment's refunds, and a replay adds none: a
        // payment never lists more refunds than distinct refund requests were sent for it. This
        // judges the replay whatever the refund answer's body (not shown by the spec: a Refund,
        // the Payment or a minimal object), where the answer names no refund id to compare.
        // Only payments the run created: refunds made before the run are not in the history.
        const p = rec.payment;
        if (p && p.refunds && p.refunds.length > 0 && is2xx(rec.status) && ctx.ledger.payments.has(p.id) && p.refunds.length > tuplesSoFar(p.id)) {
          crowded.push({ paymentId: p.id, refunds: p.refunds.length, tEnd: rec.tEnd + (rec.clockSlackMs ?? 0), seq: rec.seq });
        }
        if (rec.idemKey === undefined || !rec.sent.paymentId) return;
        if (rec.op !== 'refund' && rec.op !== 'refund_create') return;
        // The ledger (which sees every record first) has just added the request to its tuple.
        const reqs = ctx.ledger.idemRequests(rec.key, 'refund_create', rec.idemKey);
        let req: IdemRequest | undefined;
        for (let i = (reqs?.length ?? 0) - 1; i >= 0 && !req; i--) if (reqs![i].seq === rec.seq) req = reqs![i];
        // Not there only when the ledger itself failed (say its scratch file could not be written),
        // which the judge reports for every invariant, with its reason.
        if (!req) return;
        const amount = rec.sent.amount;
        asked.set(req.row, typeof amount === 'number' ? 1 : 2);
        paymentRowOf.set(req.row, rows.rowOf(rec.sent.paymentId));
        if (typeof amount === 'number') amounts.set(req.row, amount);
        else oddAmounts.set(req.row, amount);
      },
      finish() {
        const reported = new Set<string>();
        for (const c of crowded) {
          const sent = requestsBefore(c.paymentId, c.tEnd);
          if (c.refunds <= sent || reported.has(c.paymentId)) continue;
          reported.add(c.paymentId);
          f.check();
          f.violation({
            message: `payment ${c.paymentId} lists ${c.refunds} refunds, but only ${sent} refund request(s) with distinct Idempotency-Keys were sent for it: a replay refunded again`,
            seqs: [c.seq, ...(ctx.ledger.refundRequests.get(c.paymentId) ?? []).slice(0, 4).map((q) => q.seq)],
            paymentIds: [c.paymentId],
          });
        }
        for (const check of [checkReplay, checkDifferentBody, checkInFlight, checkSingleObject, checkErrorsNotKept]) runTupleCheck(ctx, f, check, REFUND_SCOPES);
        checkIndependentScopes(ctx, f, 'key', REFUND_SCOPES);
        // IDEM-9 across refund and payment scopes: a refund key value reused on a create stays independent.
        checkIndependentScopes(ctx, f, 'scope', undefined, REFUND_SCOPES);
        // Both paths, one operation: the same refund under one key on the other path replays
        // (only when the service serves both paths).
        const bothServed = servedPath(ctx, 'payment') && servedPath(ctx, 'refunds');
        for (const reqs of bothServed ? ctx.ledger.idemTuples() : []) {
          if (!REFUND_SCOPES.has(reqs[0].scope)) continue;
          const tagged: PathRequest[] = [];
          for (const r of reqs) {
            const t = askedOf(r);
            if (t) tagged.push({ req: r, ...t });
          }
          if (new Set(tagged.map((t) => t.path)).size < 2) continue;
          const kept = tagged.filter((t) => is2xx(t.req.status)).sort((a, b) => a.req.tEnd - b.req.tEnd)[0];
          if (!kept || !kept.req.objectId) continue;
          for (const b of tagged) {
            if (b === kept || b.path === kept.path || b.req.tStart <= kept.req.tEnd || inconclusive(b.req)) continue;
            if (b.paymentId !== kept.paymentId || b.amount !== kept.amount) continue;
            f.check();
            if (is2xx(b.req.status) && b.req.objectId && b.req.objectId !== kept.req.objectId) {
              f.violation(
                idemEvidence(
                  `Idempotency-Key "${b.req.idemKey}" with the same refund (payment ${b.paymentId}, amount ${String(b.amount)}) on the ${b.path === 'payment' ? 'payment-scoped' : 'top-level'} path created refund ${b.req.objectId} after ${kept.req.objectId} on the other path: both refund paths are one operation, so it should have replayed`,
                  [kept.req, b.req],
                ),
              );
            }
          }
        }
        return f.outcome('no refund request repeated an Idempotency-Key (value) in a way the idempotency rules judge');
      },
    };
  },
};
export default invariant;
