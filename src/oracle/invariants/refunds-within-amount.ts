import type { Invariant } from '../types.ts';
import { overlaps } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

/**
 * REF-3: the succeeded refunds of a payment never add up to more than its amount, also
 * under concurrent refunds: summed over every refund id ever seen succeeded (a succeeded
 * refund stays succeeded; its amount as shown, else as sent), and per answer through its
 * refunded total.
 */
const invariant: Invariant = {
  id: 'refunds-within-amount',
  title: 'Succeeded refunds of a payment never add up to more than its amount, also under concurrent refunds',
  rules: ['REF-3'],
  create(ctx) {
    const f = new Findings();
    const amounts = new Map<string, number>();
    return {
      answers: 'payments',
      onRecord(rec) {
        const o = observedPayment(rec);
        if (!o) return;
        if (Number.isFinite(o.payment.amount) && !ctx.ledger.payments.has(o.payment.id) && !amounts.has(o.payment.id)) amounts.set(o.payment.id, o.payment.amount);
        if (o.payment.amountRefunded !== null && o.payment.amountRefunded > o.payment.amount) {
          f.check();
          f.violation(evidence(`payment ${o.payment.id} shows ${o.payment.amountRefunded} refunded of ${o.payment.amount}`, [o]));
        }
      },
      finish() {
        const { ledger } = ctx;
        const byPayment = new Map<string, { ids: string[]; sum: number; seqs: number[] }>();
        // The spec shows no refund body: where no answer showed a refund's amount, the amount the
        // run sent for it (a request answered with its id) stands in; a refund of "the rest" has none.
        const sentFor = new Map<string, number>();
        for (const reqs of ledger.refundRequests.values()) {
          for (const q of reqs) {
            const key = ledger.refundKeyOfRequest(q);
            if (key && q.amount !== undefined && !sentFor.has(key)) sentFor.set(key, q.amount);
          }
        }
        for (const r of ledger.refunds.values()) {
          const amount = r.amount ?? sentFor.get(r.key) ?? null;
          if (!r.paymentId || !ledger.refundSpans.seen(r.key, 'succeeded') || amount === null || !Number.isFinite(amount)) continue;
          let s = byPayment.get(r.paymentId);
          if (!s) byPayment.set(r.paymentId, (s = { ids: [], sum: 0, seqs: [] }));
          s.ids.push(r.id);
          s.sum += amount;
          s.seqs.push(ledger.refundSpans.firstEnd(r.key, 'succeeded').seq);
        }
        let concurrent = 0;
        for (const [pid, reqs] of ledger.refundRequests) {
          if (reqs.some((a, i) => reqs.some((b, j) => j > i && overlaps(a, b)))) concurrent++;
          if (!byPayment.has(pid)) f.check();
        }
        for (const [pid, s] of byPayment) {
          f.check();
          const amount = ledger.payments.get(pid)?.amount ?? amounts.get(pid);
          if (amount !== undefined && amount !== null && s.sum > amount) {
            f.violation({ message: `payment ${pid} (amount ${amount}) has succeeded refunds adding up to ${s.sum}: ${s.ids.join(', ')}`, seqs: s.seqs.slice(0, 6), paymentIds: [pid] });
          }
        }
        return f.outcome('no refund was requested or seen succeeded', `${f.checked} payments checked, ${concurrent} with concurrent refund requests`);
      },
    };
  },
};
export default invariant;
