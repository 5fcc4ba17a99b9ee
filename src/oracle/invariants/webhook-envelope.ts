import { EVENT_ID_PREFIX, EVENT_TYPES } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** WH-3: the envelope has id (evt_), type (one of the six), created_at, livemode, and data.payment or data.refund. */
const invariant: Invariant = {
  id: 'webhook-envelope',
  title: 'The event envelope has id (evt_), type, created_at, livemode, and data.payment or data.refund',
  rules: ['WH-3'],
  create() {
    const f = new Findings();
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        f.check();
        const problems = [...rec.envelopeProblems];
        if (!rec.eventId || !rec.eventId.startsWith(EVENT_ID_PREFIX)) problems.push(`id ${show(rec.eventId)}`);
        if (!rec.type || !(EVENT_TYPES as readonly string[]).includes(rec.type)) problems.push(`type ${show(rec.type)}`);
        if (!Number.isInteger(rec.createdAt)) problems.push(`created_at ${show(rec.createdAt)}`);
        if (typeof rec.livemode !== 'boolean') problems.push(`livemode ${show(rec.livemode)}`);
        if (rec.type?.startsWith('payment.') && !rec.payment) problems.push('no data.payment');
        if (rec.type?.startsWith('refund.') && !rec.refund) problems.push('no data.refund');
        if (problems.length) f.violation(evidence(`event envelope: ${[...new Set(problems)].join(', ')}`, [rec]));
      },
      finish: () => f.outcome('no webhook was delivered to the receiver'),
    };
  },
};
export default invariant;
