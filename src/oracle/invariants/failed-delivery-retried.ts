import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { delivered, eventSubject } from '../lib/webhooks.ts';

/** What this check keeps of a delivery. */
interface Delivery {
  seq: number;
  tReceived: number;
  eventId: string | null;
  answered: number;
  ok: boolean;
}
const evidence = (message: string, ds: Delivery[]) => ({ message, seqs: ds.map((d) => d.seq), times: ds.map((d) => Math.round(d.tReceived)) });

/** Tolerance on "growing": scheduling jitter may shorten an interval slightly. */
const SHRINK_TOLERANCE = 0.9;
const JITTER_MS = 100;

/**
 * WH-9: a failed delivery (non-2xx or no answer within the ack time) is retried, with
 * growing intervals. The spec gives no first retry delay, so "not retried" is judged only
 * when the run went on after the failure for twice the longest first retry seen for other
 * events (or 5 minutes of the target's time when none was seen).
 */
/** With no retry seen for any event, how long (target time, scaled) a failed delivery gets before "not retried" is judged. */
export const NO_RETRY_SEEN_WAIT_MS = 300_000;

const invariant: Invariant = {
  id: 'failed-delivery-retried',
  title: 'A failed delivery is retried, with growing intervals',
  rules: ['WH-9'],
  create(ctx) {
    const f = new Findings();
    /**
     * Deliveries of events that failed at least once, by event id. Deliveries are recorded as
     * they arrive, so an event's first failure comes before its retries; events that never
     * fail cost nothing here.
     */
    const byId = new Map<string, Delivery[]>();
    /** Subject (type and payment or refund) of each failing event, and the latest delivery about it. */
    const subjectOf = new Map<Delivery, string>();
    const lastBySubject = new Map<string, number>();
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        const ok = delivered(rec);
        if (ok && byId.size === 0) return;
        const s = eventSubject(rec);
        const k = rec.eventId ?? s;
        if (!k) return;
        if (s && lastBySubject.has(s)) lastBySubject.set(s, Math.max(lastBySubject.get(s)!, rec.tReceived));
        let l = byId.get(k);
        if (!l) {
          if (ok) return;
          byId.set(k, (l = []));
        }
        const d: Delivery = { seq: rec.seq, tReceived: rec.tReceived, eventId: rec.eventId, answered: rec.answered, ok };
        l.push(d);
        if (s && !ok) {
          subjectOf.set(d, s);
          if (!lastBySubject.has(s)) lastBySubject.set(s, rec.tReceived);
        }
      },
      finish() {
        let longestFirstRetry = 0;
        for (const l of byId.values()) {
          if (l.length > 1) l.sort((a, b) => a.tReceived - b.tReceived);
          if (l.length > 1 && !l[0].ok) longestFirstRetry = Math.max(longestFirstRetry, l[1].tReceived - l[0].tReceived);
        }
        const ack = ctx.webhooks?.ackTimeoutMs ?? 10_000;
        const wait = longestFirstRetry > 0 ? 2 * longestFirstRetry + ack : NO_RETRY_SEEN_WAIT_MS * ctx.timeScale + ack;
        const end = ctx.ledger.endTime();
        for (const l of byId.values()) {
          // The attempts up to the first success: a retry sequence.
          const firstOk = l.findIndex((d) => d.ok);
          const attempts = firstOk < 0 ? l : l.slice(0, firstOk + 1);
          const lastFailed = attempts[attempts.length - 1];
          if (!lastFailed.ok) {
            const s = subjectOf.get(lastFailed);
            const later = s ? (lastBySubject.get(s) ?? -Infinity) > lastFailed.tReceived : false;
            if (!later && end - lastFailed.tReceived >= wait) {
              f.check();
              f.violation(evidence(`delivery of ${lastFailed.eventId ?? s} failed (${lastFailed.answered}) and was not retried in the ${Math.round((end - lastFailed.tReceived) / 1000)} s the run went on`, [lastFailed]));
            }
          }
          if (attempts.length < 2) continue;
          f.check(attempts.length - 1);
          const gaps = attempts.slice(1).map((w, i) => w.tReceived - attempts[i].tReceived);
          for (let i = 1; i < gaps.length; i++) {
            if (gaps[i] < gaps[i - 1] * SHRINK_TOLERANCE - JITTER_MS) {
              f.violation(evidence(`retries of ${attempts[0].eventId} came ${Math.round(gaps[i - 1])} ms then ${Math.round(gaps[i])} ms apart: the interval shrank`, [attempts[i], attempts[i + 1]]));
              break;
            }
          }
          if (gaps.length >= 2 && gaps[gaps.length - 1] <= gaps[0] * 1.1) {
            f.violation(evidence(`retries of ${attempts[0].eventId} came at intervals ${gaps.map((g) => Math.round(g)).join(', ')} ms: they do not grow`, attempts.slice(0, 3)));
          }
        }
        return f.outcome('no delivery failed (the receiver answered every one 2xx in time)');
      },
    };
  },
};
export default invariant;
