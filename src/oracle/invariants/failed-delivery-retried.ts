import type { Finding } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { delivered, eventSubject } from '../lib/webhooks.ts';
import { NO_RETRY_SEEN_WAIT_MS } from '../../spec/tolerances.ts';

/** What this check keeps of a delivery. */
interface Delivery {
  seq: number;
  tReceived: number;
  eventId: string | null;
  answered: number;
  ok: boolean;
}
const evidence = (message: string, ds: Delivery[]) => ({ message, seqs: ds.map((d) => d.seq), times: ds.map((d) => Math.round(d.tReceived)) });

/**
 * Tolerances on "growing": timers fire late on a busy machine, and a service may add jitter to
 * its backoff. A late attempt lengthens the gap before it (and, when a service schedules from
 * the first attempt, shortens the one after), so each gap is compared with the SMALLEST gap
 * before it, the one least inflated by delays: a known gap may shrink to half of that (less
 * SLACK_MS) before it counts as shrinking; with three known gaps or more, the last must exceed
 * it by a quarter (plus SLACK_MS, or half of it when that is less), which exponential backoff
 * does by far (4x) and a constant interval never.
 */
const SHRINK_FACTOR = 0.5;
const GROWTH_FACTOR = 1.25;
const SLACK_MS = 100;
/** The first retry interval below which growth is not judged (jitter of ~100 ms would swamp it). */
const MIN_GROWTH_GAP_MS = 200;
/** After a failed retry, the next is awaited for this many times the gap before it (growth of up to 8x per step). */
const NEXT_GAP_FACTOR = 8;

/**
 * WH-9: a failed delivery (non-2xx or no answer within the ack time) is retried, with
 * growing intervals. The spec gives no first retry delay, so "not retried" is judged only
 * when the run went on after the failure for the first retry delay the run declared
 * (`--webhook-retry-within`, run.webhooks.retryWithinMs) or, undeclared, for twice the longest
 * first retry seen for other events; undeclared with no retry seen at all, a missing retry is
 * not judged (the service may retry later than the run lasts: the rule stays not exercised,
 * saying how to judge it); and
 * after a failed retry for NEXT_GAP_FACTOR times the gap before it. Growth is judged on the gaps that follow an
 * answered attempt (a 500): after no answer, the service's own time-out, not known exactly,
 * is part of the gap. The receiver fails a few events several times in a row for this.
 */
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
    /** First deliveries of test-mode events, and those the receiver answered 500 (for the finding). */
    let testEvents = 0;
    let failedFirst = 0;
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        const ok = delivered(rec);
        if (!rec.duplicate && rec.livemode === false && rec.signature === 'ok') {
          testEvents++;
          if (rec.answered === 500) failedFirst++;
        }
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
        // A declared bound is the user's statement of the service's behaviour: nothing is judged sooner.
        const declared = ctx.webhooks?.retryWithinMs;
        const wait = declared !== undefined ? declared * ctx.timeScale + ack : longestFirstRetry > 0 ? 2 * longestFirstRetry + ack : NO_RETRY_SEEN_WAIT_MS * ctx.timeScale + ack;
        const end = ctx.ledger.endTime();
        // A run cut short (interrupted, capped, no end record) stopped its receiver early: a retry
        // missing from it is no evidence, so "not retried" is judged only on a complete run.
        const judgeMissing = ctx.ledger.end?.complete === true;
        // Undeclared, with no retry seen anywhere: the service may retry later than the run lasts
        // (the spec gives no first delay, only backoff over 24 hours), so a missing retry is no
        // evidence either way. Not judged: the rule stays not exercised, and says how to judge it.
        const unknownDelay = declared === undefined && longestFirstRetry === 0;
        let unjudgedMissing = 0;
        for (const l of byId.values()) {
          // The attempts up to the first success: a retry sequence.
          const firstOk = l.findIndex((d) => d.ok);
          const attempts = firstOk < 0 ? l : l.slice(0, firstOk + 1);
          const lastFailed = attempts[attempts.length - 1];
          if (!lastFailed.ok) {
            const s = subjectOf.get(lastFailed);
            const later = s ? (lastBySubject.get(s) ?? -Infinity) > lastFailed.tReceived : false;
            // After a failed retry, the next one may come later than any first retry: wait on its own gap.
            const prev = attempts.length >= 2 ? lastFailed.tReceived - attempts[attempts.length - 2].tReceived : 0;
            const due = Math.max(wait, NEXT_GAP_FACTOR * prev + ack);
            // A later delivery about the same thing under another id is still a retry (WH-8 judges the id).
            if (later) f.check();
            else if (judgeMissing && end - lastFailed.tReceived >= due && unknownDelay) unjudgedMissing++;
            else if (judgeMissing && end - lastFailed.tReceived >= due) {
              f.check();
              f.violation(evidence(`delivery of ${lastFailed.eventId ?? s} failed (${lastFailed.answered}) and was not retried in the ${Math.round((end - lastFailed.tReceived) / 1000)} s the run went on${declared === undefined ? ' (the spec gives no first retry delay: if the deployment retries later, declare it with --webhook-retry-within)' : ''}`, [lastFailed]));
            }
          }
          if (attempts.length < 2) continue;
          f.check(attempts.length - 1);
          const gaps = attempts.slice(1).map((w, i) => ({ ms: w.tReceived - attempts[i].tReceived, from: attempts[i], to: w }));
          const known = gaps.filter((g) => g.from.answered !== 0);
          let smallest = 0; // index of the smallest known gap so far
          for (let i = 1; i < known.length; i++) {
            // A gap under MIN_GROWTH_GAP_MS is timer noise here too: a 50 ms step after a first retry 400 ms late is no shrink.
            if (known[i].ms >= MIN_GROWTH_GAP_MS && known[i].ms < known[smallest].ms * SHRINK_FACTOR - SLACK_MS) {
              f.violation(evidence(`retries of ${attempts[0].eventId} came ${Math.round(known[smallest].ms)} ms then ${Math.round(known[i].ms)} ms apart: the interval shrank`, [known[smallest].from, known[i].from, known[i].to]));
              break;
            }
            if (known[i].ms < known[smallest].ms) smallest = i;
          }
          // Jitter is absolute, so SLACK_MS; but on intervals of tens of ms it may not swallow the growth itself.
          // Intervals shorter than MIN_GROWTH_GAP_MS are timer and scheduling noise on a busy host (a
          // time-scaled service retrying 50, 100, 200 ms apart was seen at 164, 118, 214): not judged.
          if (known.length >= 3) {
            const base = Math.min(...known.slice(0, -1).map((g) => g.ms));
            const last = known[known.length - 1].ms;
            if (base >= MIN_GROWTH_GAP_MS && last <= base * GROWTH_FACTOR + Math.min(SLACK_MS, base / 2)) {
              f.violation(evidence(`retries of ${attempts[0].eventId} came at intervals ${known.map((g) => Math.round(g.ms)).join(', ')} ms: they do not grow`, attempts));
            }
          }
        }
        const injected = injectedFinding(ctx.webhooks?.failShare ?? 0, testEvents, failedFirst, byId);
        const out = f.outcome(
          byId.size === 0
            ? 'no delivery failed (the receiver answered every one 2xx in time)'
            : unjudgedMissing > 0
              ? `${unjudgedMissing} failed deliver${unjudgedMissing === 1 ? 'y was' : 'ies were'} not retried while the run went on (at least ${Math.round(wait / 1000)} s), and no event was retried at all; the spec gives no first retry delay, so this is no evidence either way: declare the service's with --webhook-retry-within (e.g. 1h) to judge it`
              : `no failed delivery was retried, and none waited past the bound before the run ended (${Math.round(wait / 1000)} s: ${declared !== undefined ? '--webhook-retry-within' : 'the spec sets no first retry delay; 5 minutes assumed, or declare --webhook-retry-within'}): run longer`,
        );
        return injected ? { ...out, findings: [...(out.findings ?? []), injected] } : out;
      },
    };
  },
};

/** What the receiver failed on purpose, for the reports (none when the run failed no share). */
function injectedFinding(share: number, testEvents: number, failedFirst: number, byId: Map<string, Delivery[]>): Finding | null {
  if (!(share > 0)) return null;
  let repeated = 0;
  let most = 0;
  for (const l of byId.values()) {
    let run = 0;
    for (const d of l) {
      if (d.answered !== 500) break;
      run++;
    }
    if (run >= 2) repeated++;
    most = Math.max(most, run);
  }
  const again = repeated ? `, ${repeated} of them on ${most} attempts in a row,` : '';
  return {
    id: 'webhook-failures-injected',
    level: 'info',
    text: `paystorm's webhook receiver answered 500 to the first delivery of ${failedFirst} of ${testEvents} test-mode events (fail share ${share})${again} so that retries are judged (WH-8 keeps the event id, WH-9 retries at growing intervals); live-mode events are never failed, and --webhook-fail-share 0 turns this off.`,
    rules: ['WH-8', 'WH-9'],
  };
}
export default invariant;
