import type { Invariant } from '../types.ts';
import { overlaps } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';
import { Uint8Column } from '../lib/paged-column.ts';
import { firstByRefundRow } from '../lib/refunds.ts';
import type { RefundFacts } from '../lib/refund-table.ts';

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
        // The spec shows no refund body: where no answer showed a refund's amount, the amount the
        // run sent for it (a request answered with its id) stands in; a refund of "the rest" has none.
        // Kept by the refund's row (a refund never shown has none, and is never summed), and the
        // payments walked by the refund table's chains, not Maps by refund key and by payment id.
        const sent = firstByRefundRow(ledger, (q) => q.amount);
        /** The refund's amount when it counts toward its payment's sum (seen succeeded, its amount known), else null. */
        const counted = (r: RefundFacts): number | null => {
          const amount = r.amount ?? (sent.has[r.row] ? sent.value[r.row] : null);
          if (!r.paymentId || !ledger.refundSpans.seen(r.key, 'succeeded') || amount === null || !Number.isFinite(amount)) return null;
          return amount;
        };
        const hasCounted = (pid: string): boolean => {
          for (const r of ledger.refunds.refundsOf(pid)) if (counted(r) !== null) return true;
          return false;
        };
        let concurrent = 0;
        for (const [pid, reqs] of ledger.refundRequests) {
          if (reqs.some((a, i) => reqs.some((b, j) => j > i && overlaps(a, b)))) concurrent++;
          if (!hasCounted(pid)) f.check();
        }
        // Payments in the order their first counted refund was first seen, each one's refunds in that order.
        const done = new Uint8Column();
        for (const first of ledger.refunds.values()) {
          if (counted(first) === null) continue;
          const pr = ledger.paymentRows.find(first.paymentId)!;
          if (done.get(pr) === 1) continue;
          done.set(pr, 1);
          const pid = first.paymentId;
          const s = { ids: [] as string[], sum: 0, seqs: [] as number[] };
          for (const r of ledger.refunds.refundsOf(pid)) {
            const amount = counted(r);
            if (amount === null) continue;
            s.ids.push(r.id);
            s.sum += amount;
            s.seqs.push(ledger.refundSpans.firstEnd(r.key, 'succeeded').seq);
          }
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
