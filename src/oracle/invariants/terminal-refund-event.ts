import type { RefundStatus } from '../../spec/index.ts';
import { REFUND_EVENT_FOR_STATUS } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { deliveryGraceMs, EventMerchants } from '../lib/webhooks.ts';
import { PaymentRows } from '../lib/payment-rows.ts';
import { Float64Column, StringColumn, Uint32Column, ValueCodes } from '../lib/paged-column.ts';

/**
 * WH-5: every refund that reaches succeeded or failed gets refund.succeeded / refund.failed,
 * carrying data.refund.payment_id. Judged like WH-4: wired receiver, test-mode payments,
 * seen settled early enough before the end. The spec shows only payment_id of the refund
 * payload: an event without the refund's own id counts for one refund of that payment that
 * settled to the event's status and has no event naming it.
 */
interface RefundEvent {
  type: string;
  paymentId: string;
  seq: number;
}

/** RefundEvents' notes: by row, the first event's type (a code), payment id and seq. */
class RefundEvents {
  private readonly ids = new PaymentRows();
  private readonly types = new Uint32Column();
  private readonly typeCodes = new ValueCodes<string>();
  private readonly paymentIds = new StringColumn();
  private readonly seqs = new Float64Column();
  /** Refunds whose events came with more than one (type, payment_id): all of them, by row. */
  private readonly more = new Map<number, RefundEvent[]>();

  /** Notes an event, unless the refund already had one of that type and payment id. */
  add(id: string, type: string, paymentId: string, seq: number): void {
    const known = this.ids.find(id);
    if (known === undefined) {
      const r = this.ids.rowOf(id);
      this.types.set(r, this.typeCodes.codeOf(type));
      this.paymentIds.set(r, paymentId);
      this.seqs.set(r, seq);
      return;
    }
    const list = this.get(id)!;
    if (list.some((e) => e.type === type && e.paymentId === paymentId)) return;
    list.push({ type, paymentId, seq });
    this.more.set(known, list);
  }

  /** The events of refund `id` in the order first seen (undefined: none). */
  get(id: string): RefundEvent[] | undefined {
    const r = this.ids.find(id);
    if (r === undefined) return undefined;
    return this.more.get(r) ?? [{ type: this.typeCodes.valueOf(this.types.get(r))!, paymentId: this.paymentIds.get(r)!, seq: this.seqs.get(r) }];
  }
}

const invariant: Invariant = {
  id: 'terminal-refund-event',
  title: 'Every refund that reaches succeeded or failed gets refund.succeeded or refund.failed with data.refund.payment_id',
  rules: ['WH-5'],
  create(ctx) {
    const f = new Findings();
    /**
     * refund id -> each event type and payment_id it came with, first seen (ids may repeat across
     * payments). Most refunds have one event: it is kept in paged columns by the id's row in an
     * index of its own (old pages on disk), the others of a refund in `more`.
     */
    const events = new RefundEvents();
    /** Events whose refund payload has no id: `payment id|type` -> how many (event ids counted once). */
    const anonymous = new Map<string, Set<string>>();
    const merchants = new EventMerchants(ctx);
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        merchants.saw(rec.payment?.id ?? rec.refund?.paymentId);
        if (!rec.type || !rec.refund) return;
        if (rec.refund.id === '') {
          const k = `${rec.refund.paymentId}|${rec.type}`;
          (anonymous.get(k) ?? anonymous.set(k, new Set()).get(k)!).add(rec.eventId ?? `seq:${rec.seq}`);
          return;
        }
        events.add(rec.refund.id, rec.type, rec.refund.paymentId, rec.seq);
      },
      finish() {
        if (!ctx.webhooks?.wired) return f.outcome('the webhook receiver is not wired to the target, so no event could be expected');
        const { ledger } = ctx;
        const dueBy = ledger.endTime() - deliveryGraceMs(ctx);
        /** How many of each payment's id-less events have been matched to a refund. */
        const spent = new Map<Set<string>, number>();
        /** Refund ids seen under more than one payment: an event naming another payment is then another refund's. */
        const idPayments = new Map<string, number>();
        for (const r of ledger.refunds.values()) if (r.paymentId) idPayments.set(r.id, (idPayments.get(r.id) ?? 0) + 1);
        for (const r of ledger.refunds.values()) {
          const owner = ledger.payments.get(r.paymentId);
          if (owner?.mode !== 'test') continue;
          let end: { status: RefundStatus; t: number; seq: number } | null = null;
          for (const s of ['succeeded', 'failed'] as const) {
            const at = ledger.refundSpans.firstEnd(r.key, s);
            if (at.t !== Infinity && (!end || at.t < end.t)) end = { status: s, ...at };
          }
          if (!end || end.t > dueBy || !merchants.expects(owner.merchant)) continue;
          f.check();
          const type = REFUND_EVENT_FOR_STATUS[end.status]!;
          const sent = events.get(r.id)?.filter((e) => e.type === type);
          const got = sent?.find((e) => e.paymentId === r.paymentId) ?? ((idPayments.get(r.id) ?? 0) > 1 ? undefined : sent?.[0]);
          const anon = got ? undefined : anonymous.get(`${r.paymentId}|${type}`);
          if (anon && anon.size > (spent.get(anon) ?? 0)) {
            spent.set(anon, (spent.get(anon) ?? 0) + 1);
            continue;
          }
          if (!got) f.violation({ message: `refund ${r.id} of ${r.paymentId} was seen ${end.status} but no ${type} event arrived by the end of the run`, seqs: [end.seq], paymentIds: [r.paymentId] });
          else if (got.paymentId !== r.paymentId) f.violation({ message: `${type} for refund ${r.id} carries data.refund.payment_id ${JSON.stringify(got.paymentId)} (expected ${r.paymentId})`, seqs: [got.seq], paymentIds: [r.paymentId] });
        }
        const out = f.outcome('no refund of a test-mode payment was seen settled early enough before the end for its event to be due');
        const unwired = merchants.finding('webhook-merchants-without-refund-events', 'WH-5', 'settled refunds');
        return unwired ? { ...out, findings: [...(out.findings ?? []), unwired] } : out;
      },
    };
  },
};
export default invariant;
