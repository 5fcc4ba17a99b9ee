import type { WebhookRecord } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { delivered, eventSubject } from '../lib/webhooks.ts';

/**
 * WH-8: retries of one event keep its id: after a failed delivery, the next delivery about
 * the same thing (type and payment or refund) carries the same event id; and one event id
 * is never reused for something else.
 */
const invariant: Invariant = {
  id: 'retries-keep-event-id',
  title: 'Retries of one event keep its id',
  rules: ['WH-8'],
  create() {
    const f = new Findings();
    const bySubject = new Map<string, WebhookRecord[]>();
    const byId = new Map<string, WebhookRecord>();
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        const subject = eventSubject(rec);
        if (subject) {
          let l = bySubject.get(subject);
          if (!l) bySubject.set(subject, (l = []));
          l.push(rec);
        }
        if (!rec.eventId) return;
        const first = byId.get(rec.eventId);
        if (!first) byId.set(rec.eventId, rec);
        else {
          f.check();
          if (eventSubject(first) !== subject) f.violation(evidence(`event id ${rec.eventId} was used for ${eventSubject(first)} and for ${subject}`, [first, rec]));
        }
      },
      finish() {
        for (const list of bySubject.values()) {
          list.sort((a, b) => a.tReceived - b.tReceived);
          list.forEach((w, i) => {
            if (delivered(w) || i === list.length - 1 || !w.eventId) return;
            f.check();
            const later = list.slice(i + 1);
            if (!later.some((x) => x.eventId === w.eventId)) f.violation(evidence(`delivery of ${w.eventId} failed (${w.answered}) and the next delivery about ${eventSubject(w)} came as ${later[0].eventId}`, [w, later[0]]));
          });
        }
        return f.outcome('no failed delivery was followed by another delivery of the same event');
      },
    };
  },
};
export default invariant;
