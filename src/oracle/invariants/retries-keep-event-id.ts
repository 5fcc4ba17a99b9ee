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
 * the same thing (type and payment or refund) carries the same event id; and a retried
 * event id is never used for something else.
 */
const invariant: Invariant = {
  id: 'retries-keep-event-id',
  title: 'Retries of one event keep its id',
  rules: ['WH-8'],
  create() {
    const f = new Findings();
    /** Per subject, failed deliveries not yet retried, and the first other delivery about the subject since. */
    const awaitingRetry = new Map<string, { failed: Delivery; other: Delivery | null }[]>();
    /** Subject of each event that failed once: its retries must be about the same thing. */
    const failedIds = new Map<string, Delivery>();
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        const ok = delivered(rec);
        // Nothing failed yet and this one went through: nothing to follow (the common case, kept cheap).
        if (ok && awaitingRetry.size === 0 && failedIds.size === 0) return;
        const subject = eventSubject(rec);
        const d: Delivery = { seq: rec.seq, t: rec.tReceived, eventId: rec.eventId, subject, answered: rec.answered, ok };
        if (subject) {
          // Deliveries are recorded as they arrive: a later one about the subject with the failed id is its retry.
          const waiting = awaitingRetry.get(subject);
          if (waiting) {
            for (let i = waiting.length - 1; i >= 0; i--) {
              const w = waiting[i];
              if (d.eventId === w.failed.eventId) {
                f.check();
                waiting.splice(i, 1);
              } else w.other ??= d;
            }
            if (waiting.length === 0) awaitingRetry.delete(subject);
          }
          if (!d.ok && d.eventId) {
            const list = awaitingRetry.get(subject) ?? [];
            list.push({ failed: d, other: null });
            awaitingRetry.set(subject, list);
          }
        }
        if (!rec.eventId) return;
        const first = failedIds.get(rec.eventId);
        if (first) {
          f.check();
          if (first.subject !== subject) f.violation(ev(`event id ${rec.eventId} was used for ${first.subject} and for ${subject}`, [first, d]));
        } else if (!ok) failedIds.set(rec.eventId, d);
      },
      finish() {
        // Deliveries about the subject came after the failure, none with its id: the retry changed it.
        for (const waiting of awaitingRetry.values()) {
          for (const w of waiting) {
            if (!w.other) continue;
            f.check();
            f.violation(ev(`delivery of ${w.failed.eventId} failed (${w.failed.answered}) and the next delivery about ${w.failed.subject} came as ${w.other.eventId}`, [w.failed, w.other]));
          }
        }
        return f.outcome('no failed delivery was followed by another delivery of the same event');
      },
    };
  },
};
export default invariant;
