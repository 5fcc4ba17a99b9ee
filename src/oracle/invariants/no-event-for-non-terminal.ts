import type { Invariant } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** WH-6: no event is sent for requires_action, pending or processing. */
const invariant: Invariant = {
  id: 'no-event-for-non-terminal',
  title: 'No event is sent for requires_action, pending or processing',
  rules: ['WH-6'],
  create() {
    const f = new Findings();
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        f.check();
        if (rec.type && /\.(requires_action|pending|processing)$/i.test(rec.type)) f.violation(evidence(`event ${rec.eventId ?? ''} of type ${rec.type} was sent`, [rec]));
      },
      finish: () => f.outcome('no webhook was delivered to the receiver'),
    };
  },
};
export default invariant;
