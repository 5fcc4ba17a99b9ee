import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { delivered, eventSubject } from '../lib/webhooks.ts';

/** What this check keeps of a delivery. */
interface Delivery {
  seq: number;
  t: number;
  eventId: string | null;
  subject: string | null;
  answered: number;
  ok: boolean;
}
const ev = (message: string, ds: Delivery[]) => ({ message, seqs: ds.map((d) => d.seq), times: ds.map((d) => Math.round(d.t)) });

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
    const bySubject = new Map<string, Delivery[]>();
    const byId = new Map<string, Delivery>();
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        const subject = eventSubject(rec);
        const d: Delivery = { seq: rec.seq, t: rec.tReceived, eventId: rec.eventId, subject, answered: rec.answered, ok: delivered(rec) };
        if (subject) {
          let l = bySubject.get(subject);
          if (!l) bySubject.set(subject, (l = []));
          l.push(d);
        }
        if (!rec.eventId) return;
        const first = byId.get(rec.eventId);
        if (!first) byId.set(rec.eventId, d);
        else {
          f.check();
          if (first.subject !== subject) f.violation(ev(`event id ${rec.eventId} was used for ${first.subject} and for ${subject}`, [first, d]));
        }
      },
      finish() {
        for (const list of bySubject.values()) {
          if (list.length < 2) continue;
          list.sort((a, b) => a.t - b.t);
          list.forEach((w, i) => {
            if (w.ok || i === list.length - 1 || !w.eventId) return;
            f.check();
            const later = list.slice(i + 1);
            if (!later.some((x) => x.eventId === w.eventId)) f.violation(ev(`delivery of ${w.eventId} failed (${w.answered}) and the next delivery about ${w.subject} came as ${later[0].eventId}`, [w, later[0]]));
          });
        }
        return f.outcome('no failed delivery was followed by another delivery of the same event');
      },
    };
  },
};
export default invariant;
