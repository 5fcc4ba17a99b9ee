import type { Invariant } from '../types.ts';
import { is2xx, isRefundRequest } from '../lib/exchange.ts';
import { Findings } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';
import { refundEvidence } from '../lib/refunds.ts';

/**
 * REF-4 (and the amount rule behind it, PAY-2/PAY-5 for refunds): a refund probe with a bad amount
 * (0, negative, a fraction, a string, above the refundable amount; src/spec/bad-inputs.ts) must not
 * move money, whatever the service answered. The bad-input scenario fetches the probed payment
 * afterwards; on a payment that no valid refund touched, its refunded total (A `amount_refunded`,
 * B `refunded_amount`) and its `refunds` stay empty.
 */
const invariant: Invariant = {
  id: 'bad-refund-no-effect',
  title: "A refund with a bad amount leaves the payment's refunded total and refunds unchanged",
  rules: ['REF-4'],
  create(ctx) {
    const f = new Findings();
    /** Payments probed with bad refunds: when the first probe was answered. */
    const probed = new Map<string, number>();
    /** Per probed payment, the first later observation showing money refunded, and how many were judged. */
    const moved = new Map<string, { seq: number; total: number | null; refunds: number }>();
    const looked = new Set<string>();
    return {
      kinds: ['exchange', 'webhook'],
      onRecord(rec) {
        if (rec.kind === 'exchange' && rec.sent.badInput && isRefundRequest(rec) && rec.sent.paymentId) {
          if (!probed.has(rec.sent.paymentId)) probed.set(rec.sent.paymentId, rec.tEnd);
          return;
        }
        const o = observedPayment(rec);
        if (!o) return;
        const since = probed.get(o.payment.id);
        const t = o.kind === 'exchange' ? o.tStart : o.tReceived;
        if (since === undefined || t <= since) return;
        looked.add(o.payment.id);
        const total = o.payment.amountRefunded;
        const refunds = o.payment.refunds?.length ?? 0;
        if (((total ?? 0) > 0 || refunds > 0) && !moved.has(o.payment.id)) moved.set(o.payment.id, { seq: o.seq, total, refunds });
      },
      finish() {
        const { ledger } = ctx;
        for (const pid of looked) {
          const reqs = ledger.refundRequests.get(pid) ?? [];
          // A valid refund (or one whose answer was lost) may have moved it: not judged.
          if (reqs.some((q) => !q.badInput && (is2xx(q.status) || q.status === 0 || q.status >= 500))) continue;
          f.check();
          const m = moved.get(pid);
          if (!m) continue;
          const bad = reqs.filter((q) => q.badInput);
          const accepted = bad.filter((q) => is2xx(q.status));
          const shown = (accepted.length ? accepted : bad).slice(0, 4);
          f.violation({
            ...refundEvidence(
              `payment ${pid} shows ${m.total ?? '?'} refunded and ${m.refunds} refund(s) after refund probes with bad amounts (${shown.map((q) => `${JSON.stringify(q.amountSent)} -> ${q.status}`).join(', ')}) and no valid refund`,
              shown,
              [m.seq],
            ),
          });
        }
        return f.outcome('no payment probed with bad refund amounts was fetched afterwards');
      },
    };
  },
};
export default invariant;
