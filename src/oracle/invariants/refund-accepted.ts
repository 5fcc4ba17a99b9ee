import type { CanonicalRefund } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { is2xx, isRefundRequest } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { servedPath } from '../lib/refund-paths.ts';
import { amountRequiredRefusal, refundEvidence, refundInconclusive, sameOwner } from '../lib/refunds.ts';

/**
 * REF-1: a refund of a succeeded payment is accepted (the first refund asked of a
 * payment certainly succeeded before, within its amount, on a served refund path), it then
 * appears in the payment's refunds (oldest first), and its status goes pending -> succeeded
 * or failed and no further. The refund answer's body is not shown by the spec (a Refund, the
 * Payment, or a minimal object are all conforming): what is judged is the payment fetched
 * afterwards: it lists at least one refund per accepted refund request (one per
 * Idempotency-Key), and every accepted refund whose id the answer named.
 */
/** An accepted refund request: the refund id its answer named, its key and Idempotency-Key, and when it was answered. */
interface Accepted {
  id: string | undefined;
  key: string;
  idem: string;
  tStart: number;
  tEnd: number;
  seq: number;
}

const invariant: Invariant = {
  id: 'refund-accepted',
  title: "A refund of a succeeded payment is accepted, appears in the payment's refunds oldest first, and goes pending -> succeeded or failed",
  rules: ['REF-1'],
  create(ctx) {
    const f = new Findings();
    /**
     * Accepted refunds of a payment: its 2xx refund requests in the order they were recorded, one
     * per (key, Idempotency-Key) (its own when it sent none) and refund id, the first kept. Read
     * from the ledger's refund requests (which see every record first) when a payment's refunds
     * are shown, not noted again here: a soak's refunds would each hold a note to the end.
     */
    const acceptedOf = (pid: string): Accepted[] | undefined => {
      const reqs = ctx.ledger.refundRequests.get(pid);
      if (!reqs) return undefined;
      let out: Accepted[] | undefined;
      for (const q of reqs) {
        if (!is2xx(q.status)) continue;
        const idem = q.idemKey ?? `#${q.seq}`;
        const entry: Accepted = { id: q.refundId, key: q.key, idem, tStart: q.tStart, tEnd: q.tEnd, seq: q.seq };
        if (!out) out = [entry];
        else if (!out.some((a) => (a.key === q.key && a.idem === idem) || (q.refundId !== undefined && a.id === q.refundId))) out.push(entry);
      }
      return out;
    };
    let anyAccepted = false;
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange') return;
        const refundOp = rec.op === 'refund' || rec.op === 'refund_create' || rec.op === 'raw';
        if (refundOp && isRefundRequest(rec) && is2xx(rec.status)) {
          f.check();
          const r = rec.refund;
          const pid = rec.sent.paymentId;
          if (r && pid && r.paymentId && r.paymentId !== pid) f.violation(evidence(`refund ${r.id} of ${pid} says payment_id ${r.paymentId}`, [rec]));
          if (rec.payment && pid && rec.payment.id !== pid) f.violation(evidence(`refund of ${pid} answered with payment ${rec.payment.id}`, [rec]));
          if (pid) anyAccepted = true;
          return;
        }
        const p = rec.payment;
        if (!p || !p.refunds || !anyAccepted || !is2xx(rec.status) || (refundOp && isRefundRequest(rec))) return;
        const mine = acceptedOf(p.id);
        if (!mine) return;
        const ids = p.refunds.map((x: CanonicalRefund) => x.id);
        const before = mine.filter((a) => a.tEnd < rec.tStart);
        for (const a of before) {
          f.check();
          if (a.id && !ids.includes(a.id)) f.violation(evidence(`refund ${a.id} (accepted at seq ${a.seq}) is missing from payment ${p.id}'s refunds ${show(ids)}`, [rec], { seqs: [a.seq] }));
        }
        if (before.length > ids.length) {
          f.violation(evidence(`payment ${p.id} lists ${ids.length} refund(s) after ${before.length} refund requests with distinct Idempotency-Keys were accepted`, [rec], { seqs: before.slice(0, 4).map((a) => a.seq) }));
        }
        // Oldest first: by created, and by the order the run made them in when that is certain.
        const created = p.refunds.map((x) => x.created);
        for (let i = 1; i < created.length; i++) {
          const a = created[i - 1];
          const b = created[i];
          if (a !== null && b !== null && b < a) f.violation(evidence(`payment ${p.id}'s refunds are not oldest first (created ${a} before ${b})`, [rec]));
        }
        for (const a of mine) for (const b of mine) {
          if (!a.id || !b.id) continue;
          if (a.tEnd < b.tStart && ids.includes(a.id) && ids.includes(b.id) && ids.indexOf(a.id) > ids.indexOf(b.id)) {
            f.violation(evidence(`payment ${p.id} lists refund ${b.id} before ${a.id}, though ${a.id} was made first`, [rec], { seqs: [a.seq, b.seq] }));
          }
        }
      },
      finish() {
        const { ledger } = ctx;
        for (const [pid, all] of ledger.refundRequests) {
          // Bad-input probes are judged by their own invariants; a path the service does not serve says nothing.
          // A refusal of a refund sent without an amount made no refund: the next request is the first.
          const reqs = all.filter((q) => !q.badInput && servedPath(ctx, q.path) && !amountRequiredRefusal(q));
          if (reqs.length === 0) continue;
          const sorted = [...reqs].sort((a, b) => a.tStart - b.tStart);
          const q = sorted[0];
          // Only the first request: no other refund can have used up the amount.
          if (sorted.length > 1 && sorted[1].tStart < q.tEnd) continue;
          if (refundInconclusive(q) || !sameOwner(ctx, q) || is2xx(q.status)) continue;
          const succeeded = ledger.paymentSpans.firstEnd(pid, 'succeeded');
          const amount = ledger.payments.get(pid)?.amount;
          if (!(succeeded.t < q.tStart) || (q.amount !== undefined && (amount === undefined || amount === null || q.amount > amount || q.amount < 1))) continue;
          f.check();
          f.violation(refundEvidence(`first refund of succeeded payment ${pid} (${q.amount ?? 'full'} of ${amount}) was refused ${q.status} ${q.code}`, [q], [succeeded.seq]));
        }
        for (const key of ledger.refundSpans.ids()) {
          const pairs = ledger.refundSpans.orderedPairs(key);
          if (pairs.length === 0) continue;
          f.check();
          const bad = pairs.find((p) => p.from !== 'pending');
          const r = ledger.refunds.get(key);
          if (bad) f.violation({ message: `refund ${r?.id ?? key}${r?.paymentId ? ` of ${r.paymentId}` : ''} went ${bad.from} -> ${bad.to}`, seqs: [bad.fromSeq, bad.toSeq], times: [bad.fromEnd, bad.toStart] });
        }
        return f.outcome('no refund was requested');
      },
    };
  },
};
export default invariant;
