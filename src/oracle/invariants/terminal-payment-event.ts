import { PAYMENT_EVENT_FOR_STATUS } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { deliveryGraceMs, EventMerchants } from '../lib/webhooks.ts';
import { Uint32Column, ValueCodes } from '../lib/paged-column.ts';

/**
 * WH-4: every payment that reaches succeeded, failed, canceled or expired gets an event of
 * the matching type. Judged only when the receiver is wired to the target, for the run's
 * test-mode payments, and only for those seen terminal long enough before the end of the
 * run for a delivery to be due (the ack time plus a grace). Against a deployment paystorm did
 * not start, only merchants with at least one event are judged (lib/webhooks.ts EventMerchants).
 */
const invariant: Invariant = {
  id: 'terminal-payment-event',
  title: 'Every payment that reaches a terminal status gets at least one event of the matching type',
  rules: ['WH-4'],
  create(ctx) {
    const f = new Findings();
    /**
     * By the payment's row in the ledger's payment rows, the event types delivered about it: the
     * first as a code in a paged column (old pages on disk), not the record's string; the others,
     * when a payment had more than one type, in `moreTypes`.
     */
    const firstType = new Uint32Column();
    const typeCodes = new ValueCodes<string>();
    const moreTypes = new Map<number, string[]>();
    const delivered = (row: number, type: string): boolean => {
      const c = firstType.get(row);
      return c !== 0 && (typeCodes.valueOf(c) === type || moreTypes.get(row)?.includes(type) === true);
    };
    const rows = ctx.ledger.paymentRows;
    const merchants = new EventMerchants(ctx);
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        merchants.saw(rec.payment?.id ?? rec.refund?.paymentId);
        if (!rec.type || !rec.payment) return;
        const row = rows.rowOf(rec.payment.id);
        const c = firstType.get(row);
        if (c === 0) firstType.set(row, typeCodes.codeOf(rec.type));
        else if (typeCodes.valueOf(c) !== rec.type) {
          const more = moreTypes.get(row);
          if (!more) moreTypes.set(row, [rec.type]);
          else if (!more.includes(rec.type)) more.push(rec.type);
        }
      },
      finish() {
        if (!ctx.webhooks?.wired) return f.outcome('the webhook receiver is not wired to the target, so no event could be expected');
        const dueBy = ctx.ledger.endTime() - deliveryGraceMs(ctx);
        for (const p of ctx.ledger.payments.values()) {
          if (p.mode !== 'test') continue;
          const end = ctx.ledger.firstTerminalOf(p);
          if (!end || end.t > dueBy || !merchants.expects(p.merchant)) continue;
          f.check();
          const type = PAYMENT_EVENT_FOR_STATUS[end.status]!;
          if (!delivered(p.row, type)) {
            f.violation({ message: `payment ${p.id} was seen ${end.status} at ${Math.round(end.t)} ms but no ${type} event arrived by the end of the run (${Math.round(ctx.ledger.endTime())} ms)`, seqs: [p.seq, end.seq], times: [end.t], paymentIds: [p.id], keys: [p.key] });
          }
        }
        const out = f.outcome('no test-mode payment of the run was seen terminal early enough before the end for its event to be due');
        const unwired = merchants.finding('webhook-merchants-without-events', 'WH-4', 'terminal payments');
        return unwired ? { ...out, findings: [...(out.findings ?? []), unwired] } : out;
      },
    };
  },
};
export default invariant;
