import { EVENT_TYPES, statusOfEvent, type EventType } from '../../spec/index.ts';

/** Status each event type stands for, computed once. */
const STATUS_OF = new Map<string, string>(EVENT_TYPES.map((t) => [t, statusOfEvent(t as EventType)]));
import type { Invariant } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** WH-7: data.payment is the payment as GET would return it then, so its status matches the event type (likewise data.refund for refund events). */
const invariant: Invariant = {
  id: 'event-matches-type',
  title: "data.payment's status (data.refund's for refund events) matches the event type",
  rules: ['WH-7'],
  create() {
    const f = new Findings();
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        const want = rec.kind === 'webhook' && rec.type ? STATUS_OF.get(rec.type) : undefined;
        if (rec.kind !== 'webhook' || !rec.type || want === undefined) return;
        const obj = rec.type.startsWith('payment.') ? rec.payment : rec.refund;
        if (!obj) return;
        f.check();
        if (obj.status !== want) f.violation(evidence(`${rec.type} event ${rec.eventId ?? ''} carries ${rec.type.split('.')[0]} ${obj.id} in status ${obj.status}`, [rec]));
      },
      finish: () => f.outcome('no payment or refund event was delivered'),
    };
  },
};
export default invariant;
