import type { Finding } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { delivered, eventSubject } from '../lib/webhooks.ts';
import { NO_RETRY_SEEN_WAIT_MS } from '../../spec/tolerances.ts';
import { COPY_GAP_MS } from '../../spec/tolerances.ts';

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
 * SLACK_MS) before it counts as shrinking; with three known gaps of MIN_GROWTH_GAP_MS or more
 * (shorter ones summed, see growthGroups), the last must exceed the smallest of them before it by a
 * quarter (plus SLACK_MS), which
 * exponential backoff does by far (4x) and a constant interval never. A chain whose summed
 * intervals fail that still passes when its intervals read as they came grow (see unsummedGrows).
 */
const SHRINK_FACTOR = 0.5;
const GROWTH_FACTOR = 1.25;
const SLACK_MS = 100;
/**
 * Gaps below this are not judged for growth on their own (jitter of ~100 ms would swamp them):
 * consecutive ones are summed until they reach it (see growthGroups). Deliveries of one id less
 * than this apart may also be copies of each other (at-least-once delivery): the receiver's
 * answer policy reads them the same way (src/webhooks/answer.ts COPY_GAP_MS).
 */
const MIN_GROWTH_GAP_MS = 200;
/** After a failed retry, the next is awaited for this many times the gap before it (growth of up to 8x per step). */
const NEXT_GAP_FACTOR = 8;
/** Pairings of one id's deliveries into chains tried at most (lists are small; past this, the id is not judged). */
const MAX_PAIRINGS = 4096;
/**
 * A free reading (see freeReading) holds every chain of an id to one retry schedule: the k-th
 * intervals of its chains differ by at most this factor (plus SLACK_MS), jitter and a late timer
 * included. A schedule of 1, 2, 4 s with 10% jitter stays within 1.25.
 */
const SCHEDULE_SPREAD = 1.5;
/** Steps of the search for a free reading of one id (past this, the pairings' verdict stands). */
const MAX_FREE_STEPS = 4096;
/**
 * A reading whose every chain has at least this many intervals (the receiver fails the chains it
 * judges three times in a row) accounts for each copy in a chain of its own: see unsummedGrows.
 */
const FULL_CHAIN_GAPS = 3;

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
 *
 * "Delivery is at-least-once": one id may arrive as several copies, each retried on its own, so
 * one id's deliveries are split into retry chains (see pairings): a delivery continues the chain
 * of the oldest failed delivery of that id not yet retried, or starts a new chain (a copy). The
 * split is a reading, not a fact: every plausible one is tried, and an id is a violation only
 * when every plausible reading violates. First retry delays come from chain retries, never copies.
 * A copy may also start later, between the retries of the chain it copies (a queue redelivering
 * after a visibility time-out, a service that copies a failed delivery), and its retries interleave
 * with that chain's out of order: an id that every pairing fails gets a second look at every split
 * (see freeReading), held to stricter terms, since it can pick the split.
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
    /** Ids whose first tracked delivery came after earlier ones, all answered 2xx (the record says duplicate). */
    const okBefore = new Set<string>();
    /** Subject (type and payment or refund) of each failing event, and the latest deliveries about it under two ids. */
    const subjectOf = new Map<Delivery, string>();
    const lastBySubject = new Map<string, SubjectLast>();
    /** First deliveries of test-mode events, and those the receiver answered 500 (for the finding). */
    let testEvents = 0;
    let failedFirst = 0;
    /** Some event was delivered again after a 2xx: the service sends copies (see pairings, `trailing`). */
    let copiesSeen = false;
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        const ok = delivered(rec);
        if (!rec.duplicate && rec.livemode === false && rec.signature === 'ok') {
          testEvents++;
          if (rec.answered === 500) failedFirst++;
        }
        const s = eventSubject(rec);
        const k = rec.eventId ?? s;
        // A second delivery of an event whose deliveries were all answered 2xx: a copy.
        if (ok && rec.duplicate && rec.eventId !== null && !byId.has(rec.eventId)) copiesSeen = true;
        if (ok && byId.size === 0) return;
        if (!k) return;
        const sl = s ? lastBySubject.get(s) : undefined;
        if (sl) noteSubject(sl, k, rec.tReceived);
        let l = byId.get(k);
        if (!l) {
          if (ok) return;
          byId.set(k, (l = []));
          if (rec.duplicate) okBefore.add(k);
        }
        const d: Delivery = { seq: rec.seq, tReceived: rec.tReceived, eventId: rec.eventId, answered: rec.answered, ok };
        l.push(d);
        if (s && !ok) {
          subjectOf.set(d, s);
          if (!sl) lastBySubject.set(s, { t1: rec.tReceived, id1: k, t2: -Infinity });
        }
      },
      finish() {
        for (const [k, l] of byId) {
          if (l.length > 1) l.sort((a, b) => a.tReceived - b.tReceived || a.seq - b.seq);
          const firstOk = l.findIndex((d) => d.ok);
          if (okBefore.has(k) || (firstOk >= 0 && firstOk < l.length - 1)) copiesSeen = true;
        }
        const trailing = copiesSeen;
        // First retries of chains, over every plausible reading: the longest any reading shows (the
        // longest wait, so the fewest "not retried"), and whether every id can be read without any
        // retry (its other deliveries all copies close to another delivery, or after a 2xx).
        let longestFirstRetry = 0;
        let everyIdRetryFree = true;
        for (const [k, l] of byId) {
          let retryFree = false;
          pairings(l, okBefore.has(k), (chains) => {
            for (const c of chains) if (c.length > 1) longestFirstRetry = Math.max(longestFirstRetry, c[1].tReceived - c[0].tReceived);
            return false;
          }, trailing);
          // Without a copy trailing the first delivery by a long time: a delivery long after a failure
          // and before any 2xx is that failure's retry, the evidence that the service retries in the run.
          pairings(l, okBefore.has(k), (chains) => (retryFree = chains.every((c) => c.length === 1)), false);
          if (!retryFree) everyIdRetryFree = false;
        }
        const ack = ctx.webhooks?.ackTimeoutMs ?? 10_000;
        // A declared bound is the user's statement of the service's behaviour: nothing is judged sooner.
        const declared = ctx.webhooks?.retryWithinMs;
        const wait = declared !== undefined ? declared * ctx.timeScale + ack : longestFirstRetry > 0 ? 2 * longestFirstRetry + ack : NO_RETRY_SEEN_WAIT_MS * ctx.timeScale + ack;
        const end = ctx.ledger.endTime();
        // A run cut short (interrupted, capped, no end record) stopped its receiver early: a retry
        // missing from it is no evidence, so "not retried" is judged only on a complete run.
        const judgeMissing = ctx.ledger.end?.complete === true;
        // Undeclared, with no retry seen anywhere (in some reading of every id's copies): the service
        // may retry later than the run lasts (the spec gives no first delay, only backoff over 24
        // hours), so a missing retry is no evidence either way. Not judged: the rule stays not
        // exercised, and says how to judge it.
        const unknownDelay = declared === undefined && (longestFirstRetry === 0 || everyIdRetryFree);
        /** A later delivery about the same thing under another id is still a retry (WH-8 judges the id). */
        const laterElsewhere = (d: Delivery, k: string) => {
          const s = subjectOf.get(d);
          const sl = s ? lastBySubject.get(s) : undefined;
          return sl ? (sl.id1 !== k ? sl.t1 : sl.t2) > d.tReceived : false;
        };
        const judge = (k: string, chains: Delivery[][]): Verdict => {
          const v: Verdict = { violations: [], checks: 0, unjudged: 0 };
          for (const attempts of chains) {
            const lastFailed = attempts[attempts.length - 1];
            if (!lastFailed.ok) {
              // After a failed retry, the next one may come later than any first retry: wait on its own gap.
              const prev = attempts.length >= 2 ? lastFailed.tReceived - attempts[attempts.length - 2].tReceived : 0;
              const due = Math.max(wait, NEXT_GAP_FACTOR * prev + ack);
              if (laterElsewhere(lastFailed, k)) v.checks++;
              else if (judgeMissing && end - lastFailed.tReceived >= due && unknownDelay) v.unjudged++;
              else if (judgeMissing && end - lastFailed.tReceived >= due) {
                v.checks++;
                const s = subjectOf.get(lastFailed);
                v.violations.push(evidence(`delivery of ${lastFailed.eventId ?? s} failed (${lastFailed.answered}) and was not retried in the ${Math.round((end - lastFailed.tReceived) / 1000)} s the run went on${declared === undefined ? ' (the spec gives no first retry delay: if the deployment retries later, declare it with --webhook-retry-within)' : ''}`, [lastFailed]));
              }
            }
            if (attempts.length < 2) continue;
            v.checks += attempts.length - 1;
            v.violations.push(...chainViolations(attempts, shortGapsIn(chains)));
          }
          return v;
        };
        let unjudgedMissing = 0;
        for (const [k, l] of byId) {
          // The reading to report: the first without a violation, else the one with the fewest.
          let best: Verdict | null = null;
          const complete = pairings(l, okBefore.has(k), (chains) => {
            const v = judge(k, chains);
            if (!best || v.violations.length < best.violations.length) best = v;
            return v.violations.length === 0;
          }, trailing);
          let chosen = best as Verdict | null;
          if (!chosen) continue;
          if (complete && chosen.violations.length > 0) {
            // A failure may await its retry past the end of the run only as the id's latest delivery:
            // a free split that leaves an earlier failure of the id unretried (while later deliveries
            // went to other chains) would excuse any retrier as chains of two retries each.
            const latest = l[l.length - 1];
            const free = freeReading(l, (chains) => chains.every((c) => c[c.length - 1].ok || c[c.length - 1] === latest || laterElsewhere(c[c.length - 1], k)) && oneSchedule(chains) && judge(k, chains).violations.length === 0);
            if (free) chosen = judge(k, free);
          }
          f.check(chosen.checks);
          unjudgedMissing += chosen.unjudged;
          // Too many readings to try them all: no violation is claimed for this id.
          if (!complete) continue;
          for (const e of chosen.violations) f.violation(e);
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

/** The latest delivery about a subject (t1, under id1), and the latest under any other id (t2). */
interface SubjectLast {
  t1: number;
  id1: string;
  t2: number;
}
function noteSubject(sl: SubjectLast, id: string, t: number): void {
  if (id === sl.id1) sl.t1 = Math.max(sl.t1, t);
  else if (t >= sl.t1) (sl.t2 = sl.t1), (sl.t1 = t), (sl.id1 = id);
  else sl.t2 = Math.max(sl.t2, t);
}

/** What one reading of an id's deliveries shows. */
interface Verdict {
  violations: ReturnType<typeof evidence>[];
  checks: number;
  unjudged: number;
}

/** The intervals between a chain's attempts. */
function chainGaps(attempts: readonly Delivery[]): Gap[] {
  return attempts.slice(1).map((w, i) => ({ ms: w.tReceived - attempts[i].tReceived, from: attempts[i], to: w }));
}

type Gap = { ms: number; from: Delivery; to: Delivery };
/** How one chain's intervals shrank (the smallest known interval before, and the one that shrank) or failed to grow. */
interface ChainProblems {
  shrank?: [Gap, Gap];
  flat?: { known: Gap[]; judged: number[] };
}

/**
 * How far a chain's intervals under MIN_GROWTH_GAP_MS may be read as they came (see
 * unsummedGrows), from the other chains of its id in the same reading: 'alone' when the chain is
 * the id's only one, 'full' when every chain of the reading has FULL_CHAIN_GAPS intervals or more,
 * else 'summed' (only summed, as growthGroups sums them).
 */
type ShortGaps = 'alone' | 'full' | 'summed';
function shortGapsIn(chains: readonly Delivery[][]): ShortGaps {
  if (chains.length === 1) return 'alone';
  return chains.every((c) => c.length > FULL_CHAIN_GAPS) ? 'full' : 'summed';
}

/** Whether one chain's intervals shrank or failed to grow (see SHRINK_FACTOR, GROWTH_FACTOR, growthGroups, unsummedGrows). */
function chainProblems(attempts: readonly Delivery[], short: ShortGaps = 'summed'): ChainProblems {
  const out: ChainProblems = {};
  const gaps = chainGaps(attempts);
  const known = gaps.filter((g) => g.from.answered !== 0);
  let smallest = 0; // index of the smallest known gap so far
  for (let i = 1; i < known.length; i++) {
    // A gap under MIN_GROWTH_GAP_MS is timer noise here too: a 50 ms step after a first retry 400 ms late is no shrink.
    if (known[i].ms >= MIN_GROWTH_GAP_MS && known[i].ms < known[smallest].ms * SHRINK_FACTOR - SLACK_MS) {
      out.shrank = [known[smallest], known[i]];
      break;
    }
    if (known[i].ms < known[smallest].ms) smallest = i;
  }
  // Jitter is absolute, so SLACK_MS. Intervals shorter than MIN_GROWTH_GAP_MS are timer and
  // scheduling noise on a busy host (a time-scaled service retrying 50, 100, 200 ms apart
  // was seen at 164, 118, 214), or a copy read into the chain: see growthGroups. A chain fails to
  // grow only when it fails read both ways: summed, and as its intervals came (see unsummedGrows).
  const groups = growthGroups(gaps);
  const judged = groups.intervals.map((g) => g.reduce((a, b) => a + b, 0));
  if (judged.length >= 3 && !grows(judged[judged.length - 1], judged.slice(0, -1)) && !unsummedGrows(groups, short)) out.flat = { known, judged };
  return out;
}

/** Whether an interval exceeds the smallest of `bases` by GROWTH_FACTOR plus SLACK_MS (never with no base). */
function grows(last: number, bases: readonly number[]): boolean {
  return bases.length > 0 && last > Math.min(...bases) * GROWTH_FACTOR + SLACK_MS;
}

/**
 * Whether a chain's intervals grow read as they came: the intervals of growthGroups with every sum
 * split back into its pieces, and the first retries that came fast (`lead`), judged like the
 * summed ones (three or more, the last above the smallest before it by GROWTH_FACTOR plus
 * SLACK_MS). Summing is right for a copy that split each retry interval in two, and wrong for a
 * backoff whose first retries are short: with a factor below the golden ratio two short intervals
 * add up to more than the next one (100, 150, 225, 337.5 ms, x1.5, sum to 250, 225, 337.5: "flat"),
 * and a first retry under MIN_GROWTH_GAP_MS before a longer one is dropped (165, 213, 252, 328 ms,
 * x1.3, is judged on 213, 252, 328: "flat"). So a chain fails only if both readings fail.
 *
 * Read as they came, though, a copy's pieces pass too (a constant 250 ms retrier whose copy trails
 * by 150 ms, read as one chain: 150, 100, 150, 100, 150, 250 ms, within 10% jitter and 100 ms late
 * timers of a x1.3 backoff from 50 ms): only the rest of the reading tells them apart. A copy read into a
 * chain leaves its own chain short (its last deliveries, often its lone 2xx, in a chain of their
 * own). So this reading counts only (`short`, see shortGapsIn) when the chain is its id's only
 * chain in the reading (a copy read into it would have left its own end outside), or when every
 * chain of the reading has FULL_CHAIN_GAPS intervals or more. And an interval under SLACK_MS, a
 * copy's offset as likely as a retry (a constant 250 ms retrier with a copy 30 ms after each
 * delivery reads 30, 220, 30, 220, ...), is no base for the comparison, but as a piece of a sum
 * in a chain that is its id's only one.
 */
function unsummedGrows(groups: GrowthGroups, short: ShortGaps): boolean {
  if (short === 'summed') return false;
  const pieces = groups.intervals.flat();
  if (pieces.length + groups.lead.length < 3) return false;
  const bases = [...pieces.slice(0, -1).filter((ms) => short === 'alone' || ms >= SLACK_MS), ...groups.lead.filter((ms) => ms >= SLACK_MS)];
  return grows(pieces[pieces.length - 1], bases);
}

/** chainProblems as evidence. */
function chainViolations(attempts: Delivery[], short: ShortGaps = 'summed'): ReturnType<typeof evidence>[] {
  const { shrank, flat } = chainProblems(attempts, short);
  const out: ReturnType<typeof evidence>[] = [];
  if (shrank) {
    const [was, now] = shrank;
    out.push(evidence(`retries of ${attempts[0].eventId} came ${Math.round(was.ms)} ms then ${Math.round(now.ms)} ms apart: the interval shrank`, [was.from, now.from, now.to]));
  }
  if (flat) {
    const { known, judged } = flat;
    const plain = known.filter((g) => g.ms >= MIN_GROWTH_GAP_MS);
    const summed = judged.length !== plain.length || judged.some((ms, i) => ms !== plain[i].ms);
    out.push(evidence(`retries of ${attempts[0].eventId} came at intervals ${known.map((g) => Math.round(g.ms)).join(', ')} ms${summed ? ` (${judged.map((ms) => Math.round(ms)).join(', ')} ms with the intervals under ${MIN_GROWTH_GAP_MS} ms summed)` : ''}: they do not grow`, attempts));
  }
  return out;
}

/**
 * Whether a chain just continued by its latest attempt still reads as backoff in a free reading:
 * the new interval is MIN_GROWTH_GAP_MS or more (no summing of short pieces: a free split picks
 * them), and after an answered attempt it neither shrank (as in chainViolations) nor, with two
 * known intervals before it, failed to grow past the smaller of those two by GROWTH_FACTOR plus
 * SLACK_MS (every step, not only the last: a free split can start a chain with two short
 * intervals, then continue it at a constant one). The smaller of two, so that one late timer,
 * which lengthens the interval before it and may shorten the one after, is no violation.
 */
function stillBacksOff(attempts: readonly Delivery[]): boolean {
  const n = attempts.length;
  const from = attempts[n - 2];
  const ms = attempts[n - 1].tReceived - from.tReceived;
  if (ms < MIN_GROWTH_GAP_MS) return false;
  if (from.answered === 0) return true;
  const known = chainGaps(attempts.slice(0, -1)).filter((g) => g.from.answered !== 0).map((g) => g.ms);
  if (known.length > 0 && ms < Math.min(...known) * SHRINK_FACTOR - SLACK_MS) return false;
  return known.length < 2 || ms > Math.min(known[known.length - 1], known[known.length - 2]) * GROWTH_FACTOR + SLACK_MS;
}

/**
 * Whether an id's chains follow one retry schedule: for every k, the k-th intervals of the chains
 * (those after an answered attempt) are within SCHEDULE_SPREAD (plus SLACK_MS) of each other. A
 * service applies one retry policy to every delivery; a free split of a constant retrier and its
 * copies into short chains puts unlike intervals side by side.
 */
function oneSchedule(chains: readonly Delivery[][]): boolean {
  const lo: number[] = [];
  const hi: number[] = [];
  for (const c of chains) {
    for (let i = 1; i < c.length; i++) {
      if (c[i - 1].answered === 0) continue;
      const ms = c[i].tReceived - c[i - 1].tReceived;
      lo[i] = Math.min(lo[i] ?? Infinity, ms);
      hi[i] = Math.max(hi[i] ?? -Infinity, ms);
    }
  }
  return lo.every((min, i) => min === undefined || hi[i] <= min * SCHEDULE_SPREAD + SLACK_MS);
}

/**
 * Whether a chain as a free reading ends it (answered 2xx, or at the id's latest delivery) reads
 * as backoff: no violation of chainViolations and, with exactly two known intervals (growth is
 * not judged on two in chainViolations, where a late first retry may outlast the second), the
 * second exceeds the first by GROWTH_FACTOR plus SLACK_MS. A free split of a constant retrier and
 * its copies otherwise reads as chains of two retries each. A longer chain's first two intervals
 * are not compared: stillBacksOff judges its later steps against the smaller of them.
 */
function endsBackingOff(attempts: readonly Delivery[]): boolean {
  const known = chainGaps(attempts).filter((g) => g.from.answered !== 0).map((g) => g.ms);
  if (known.length === 2 && known[1] <= known[0] * GROWTH_FACTOR + SLACK_MS) return false;
  const p = chainProblems(attempts);
  return !p.shrank && !p.flat;
}

/**
 * A second look at an id that every pairing fails (see pairings): any split of its deliveries
 * (sorted by arrival) into chains, each delivery continuing ANY chain whose latest attempt failed
 * (not only the oldest) or starting a copy at ANY time. At-least-once delivery allows a copy to
 * start between the retries of the chain it copies (a queue redelivering after a visibility
 * time-out; a service copying a failed delivery), and its retries then interleave with that
 * chain's. Since the split is free, it is held to stricter terms than pairings' (checked as the
 * split grows, and by `accept` at its end): every chain backs off at every step (stillBacksOff)
 * and as it ends (endsBackingOff), and `accept` adds the rest (one schedule, no failure left
 * awaiting a retry but the latest, the invariant's own judgement). Returns the first split
 * `accept` takes, else null (also past MAX_FREE_STEPS).
 */
function freeReading(l: readonly Delivery[], accept: (chains: Delivery[][]) => boolean): Delivery[][] | null {
  let left = MAX_FREE_STEPS;
  const chains: Delivery[][] = [];
  /** Chains whose latest attempt failed. */
  let open: number[] = [];
  const walk = (j: number): boolean => {
    if (--left <= 0) return false;
    if (j === l.length) return chains.every(endsBackingOff) && accept(chains);
    const d = l[j];
    const saved = open;
    for (const c of saved) {
      chains[c].push(d);
      if (stillBacksOff(chains[c]) && (!d.ok || endsBackingOff(chains[c]))) {
        open = saved.filter((x) => x !== c);
        if (!d.ok) open.push(c);
        if (walk(j + 1)) return true;
        open = saved;
      }
      chains[c].pop();
    }
    chains.push([d]);
    if (!d.ok) open = [...saved, chains.length - 1];
    if (walk(j + 1)) return true;
    open = saved;
    chains.pop();
    return false;
  };
  return walk(0) ? chains.map((c) => [...c]) : null;
}

/**
 * Calls `visit` with every plausible split of one id's deliveries (sorted by arrival) into
 * retry chains, until it returns true; returns false when it stopped at MAX_PAIRINGS. Each
 * delivery after the first continues the chain of the oldest failed delivery not yet retried,
 * or starts a new chain (a copy). A copy is plausible when no chain is open, when it arrives
 * less than COPY_GAP_MS after the latest delivery that is not itself such a near copy (a copy
 * comes close to the delivery it copies; a run of deliveries each close to the one before, spread
 * over longer, is retries, of one chain or of several interleaved, not a cascade of copies, which
 * would excuse every failure as awaiting a first retry), when the id was already answered 2xx,
 * or (when `trailing`: the run showed the service sends copies, some event delivered again after
 * a 2xx) while the id has one delivery only (a copy trailing the first by any time); otherwise the
 * delivery is a retry. (Without that evidence a trailing copy is not assumed: a constant interval
 * of four attempts would read as two chains of one retry each, and pass.) A retry may come less than MIN_GROWTH_GAP_MS after its failure too (a
 * time-scaled service), so near deliveries are tried both ways.
 */
function pairings(l: Delivery[], okBefore: boolean, visit: (chains: Delivery[][]) => boolean, trailing = true): boolean {
  let left = MAX_PAIRINGS;
  const chains: Delivery[][] = [];
  /** Chains whose last delivery failed and was not continued, oldest failure first. */
  let open: number[] = [];
  /** `anchor`: the latest delivery before j that did not start a chain as a near copy only. */
  const walk = (j: number, okSeen: boolean, anchor: number): boolean => {
    if (j === l.length) {
      left--;
      return visit(chains);
    }
    if (left <= 0) return false;
    const d = l[j];
    const otherwise = j === 0 || open.length === 0 || okSeen || (trailing && chains.length === 1 && chains[0].length === 1);
    const near = j > 0 && d.tReceived - l[anchor].tReceived < COPY_GAP_MS;
    const saved = open;
    if (open.length > 0) {
      const c = open[0];
      chains[c].push(d);
      open = d.ok ? open.slice(1) : [...open.slice(1), c];
      const stop = walk(j + 1, okSeen || d.ok, j);
      open = saved;
      chains[c].pop();
      if (stop) return true;
    }
    if ((otherwise || near) && left > 0) {
      chains.push([d]);
      open = d.ok ? open : [...open, chains.length - 1];
      const stop = walk(j + 1, okSeen || d.ok, otherwise ? j : anchor);
      open = saved;
      chains.pop();
      if (stop) return true;
    }
    return false;
  };
  walk(0, okBefore, 0);
  return left > 0;
}
/**
 * The intervals of one chain that growth is judged on (`intervals`, each as the gaps it is made
 * of). An interval of MIN_GROWTH_GAP_MS or more stands on its own. Shorter ones are timer noise, or
 * pieces of one interval that a copy read into the chain split (a constant 250 ms retrier whose
 * copy trails by 150 ms reads as 150, 100, 150, 100, ...): consecutive short ones are summed until
 * they reach MIN_GROWTH_GAP_MS and stand for the interval they split (250, 250, ...), where
 * dropping each piece would drop the interval too. A sum still short when a longer interval, an
 * interval after no answer (the service's time-out is part of it, not judged), or the chain's end
 * comes is not judged; the one before the chain's first interval of MIN_GROWTH_GAP_MS or more
 * (fast first retries, or a copy's offset) is kept as `lead` for unsummedGrows. For a backoff
 * factor above the golden ratio (about 1.62) the sums still grow (two intervals before one add up
 * to less than it); below it they may not, so a chain also gets the reading of unsummedGrows.
 */
interface GrowthGroups {
  intervals: number[][];
  lead: number[];
}
function growthGroups(gaps: readonly { ms: number; from: Delivery }[]): GrowthGroups {
  const out: number[][] = [];
  let lead: number[] | null = null;
  let pieces: number[] = [];
  let short = 0;
  for (const g of gaps) {
    if (g.from.answered === 0 || g.ms >= MIN_GROWTH_GAP_MS) {
      if (g.from.answered !== 0) out.push([g.ms]);
      lead ??= g.from.answered !== 0 ? pieces : [];
      pieces = [];
      short = 0;
      continue;
    }
    pieces.push(g.ms);
    short += g.ms;
    if (short >= MIN_GROWTH_GAP_MS) {
      out.push(pieces);
      pieces = [];
      short = 0;
    }
  }
  return { intervals: out, lead: lead ?? [] };
}

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
