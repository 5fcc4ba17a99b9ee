/**
 * Idempotency checks over the ledger's POSTs grouped by `key / scope / Idempotency-Key`
 * (requests sorted by start). Each IDEM invariant runs one check over every scope;
 * REF-7 runs them over the refund scope only. Timing is judged from real overlap:
 * two requests were possibly in flight together only when neither ended before the other started.
 */
import { DIFFERENT_BODY_409_CODES, IN_FLIGHT_409_CODE, LIMITS, type Evidence } from '../../spec/index.ts';
import type { IdemRequest } from '../ledger.ts';
import type { OracleContext } from '../types.ts';
import { is2xx, overlaps } from './exchange.ts';
import type { Findings } from './findings.ts';

export type IdemCheck = ((reqs: readonly IdemRequest[], f: Findings) => void) & {
  /** The check can only find something where a key was used twice (most keys are used once). */
  needsTwo?: boolean;
};

/** Tuples with requests sorted by start, optionally only some scopes, walked as the ledger keeps them (no list of every tuple is made). */
export function* idemTuples(ctx: OracleContext, scopes?: ReadonlySet<string>): Generator<IdemRequest[]> {
  for (const reqs of ctx.ledger.idemTuples()) if (!scopes || scopes.has(reqs[0].scope)) yield reqs;
}

export function idemEvidence(message: string, reqs: readonly IdemRequest[]): Evidence {
  const e: Evidence = {
    message,
    seqs: reqs.map((r) => r.seq),
    times: reqs.map((r) => Math.round(r.tStart * 10) / 10),
    keys: [...new Set(reqs.map((r) => r.key))],
    idemKeys: [...new Set(reqs.map((r) => r.idemKey))],
  };
  const rids = reqs.map((r) => r.requestId).filter((x): x is string => !!x);
  if (rids.length) e.requestIds = rids;
  const ids = [...new Set(reqs.map((r) => r.objectId).filter((x): x is string => !!x))];
  if (ids.length) e.paymentIds = ids;
  return e;
}

/** No answer, rate limited, or a server error: says nothing about idempotency. */
export function inconclusive(r: IdemRequest): boolean {
  return r.status === 0 || r.status === 429 || r.status >= 500;
}

const answer = (r: IdemRequest) => (r.status === 0 ? 'no answer' : `${r.status}${r.code ? ' ' + r.code : ''}${r.objectId ? ' ' + r.objectId : ''}`);
/**
 * One refund sent on both refund paths under one key. The spec names both paths for the refund
 * operation but shows neither body, and the two bodies differ literally (`payment_id`), so a
 * conforming target may replay (one operation) or answer 409 (a different body), or 404 if it
 * serves one path only. Such pairs are neither "same body" nor "different body" here; a second
 * refund from them is still caught (IDEM-6, REF-7).
 */
const crossPath = (a: IdemRequest, b: IdemRequest) => a.refundPath !== undefined && b.refundPath !== undefined && a.refundPath !== b.refundPath;
/** The same body under one key (not a refund sent on the other refund path, see crossPath). */
export const sameBody = (a: IdemRequest, b: IdemRequest) => a.digest !== undefined && b.digest !== undefined && a.digest === b.digest && !crossPath(a, b);
const otherBody = (a: IdemRequest, b: IdemRequest) => a.digest !== undefined && b.digest !== undefined && a.digest !== b.digest && !crossPath(a, b);

/** How soon after an answer the server may still hold its key (IDEM-5): the lock's release, not a retry's round trip. */
export const LOCK_RELEASE_SLACK_MS = 25;

/**
 * A 409 in_use sent within LOCK_RELEASE_SLACK_MS of an earlier answer under its key: the server
 * may free the key just after that answer left, so it says nothing about replay (IDEM-3) or
 * about errors being kept (IDEM-7); IDEM-5 judges it.
 */
export function inUseJustAfter(reqs: readonly IdemRequest[], b: IdemRequest): boolean {
  return b.status === 409 && b.code === IN_FLIGHT_409_CODE && reqs.some((a) => a !== b && !refusedInUse(a) && a.tStart < b.tStart && b.tStart - a.tEnd < LOCK_RELEASE_SLACK_MS);
}

/** A 409 in_use refusal never held the key: it cannot be the request whose lock was still held. */
const refusedInUse = (a: IdemRequest) => a.status === 409 && a.code === IN_FLIGHT_409_CODE;

/**
 * A refusal that may come before the idempotency check, for a different body under a used key:
 * the body's own validation (a bad-input probe), authentication or permission, an unknown
 * payment, and for refunds the business rules (422 action_not_allowed). Any other answer to one of
 * paystorm's own valid different bodies (groups `idem-diff-*`) should have been the 409; a user
 * scenario's body may be invalid without saying so, so its 400 is not judged.
 */
function refusedBeforeIdempotency(b: IdemRequest): boolean {
  if (b.badInput || b.status === 401 || b.status === 403 || b.status === 404) return true;
  if (b.scope === 'refund_create' && b.status === 422) return true;
  return !(b.group ?? '').startsWith('idem-diff');
}

/** The response the service keeps: the first 2xx to complete. */
export function cachedResponse(reqs: readonly IdemRequest[]): IdemRequest | undefined {
  let c: IdemRequest | undefined;
  for (const r of reqs) if (is2xx(r.status) && (!c || r.tEnd < c.tEnd)) c = r;
  return c;
}

/** IDEM-3: after a 2xx completed, the same body with the same key replays it (same status, same object). */
export const checkReplay: IdemCheck = (reqs, f) => {
  const c = cachedResponse(reqs);
  if (!c) return;
  for (const b of reqs) {
    if (b === c || b.tStart <= c.tEnd || b.tStart - c.tEnd > LIMITS.idempotencyKeyLifetimeMs) continue;
    if (!sameBody(b, c) || inconclusive(b) || inUseJustAfter(reqs, b)) continue;
    f.check();
    if (is2xx(b.status)) {
      if (b.status !== c.status || b.objectId !== c.objectId) f.violation(idemEvidence(`same-body retry answered ${answer(b)}, but the original answer was ${answer(c)}`, [c, b]));
    } else if (!(b.status === 409 && b.code === 'duplicate_request')) {
      // duplicate_request is IDEM-12's to judge.
      f.violation(idemEvidence(`same-body retry after the original ${c.status} completed got ${answer(b)} instead of the replayed response`, [c, b]));
    }
  }
};

/** IDEM-4: a different body under a key whose 2xx is kept gets 409 (reused, or in_use as the error reference lists it). */
export const checkDifferentBody: IdemCheck = (reqs, f) => {
  const oks = reqs.filter((r) => is2xx(r.status) && r.digest !== undefined);
  for (let i = 1; i < oks.length; i++) {
    if (otherBody(oks[0], oks[i])) {
      f.check();
      f.violation(idemEvidence(`two different bodies under one Idempotency-Key were both executed (${answer(oks[0])}, ${answer(oks[i])})`, [oks[0], oks[i]]));
      break;
    }
  }
  const c = cachedResponse(reqs);
  if (!c) return;
  for (const b of reqs) {
    if (b === c || b.tStart <= c.tEnd || b.tStart - c.tEnd > LIMITS.idempotencyKeyLifetimeMs || !otherBody(b, c) || inconclusive(b)) continue;
    if (is2xx(b.status)) continue; // reported above
    if (b.status !== 409) {
      if (refusedBeforeIdempotency(b)) continue;
      f.check();
      f.violation(idemEvidence(`a valid different body under a used key got ${answer(b)} (expected 409 ${DIFFERENT_BODY_409_CODES.join(' or ')})`, [c, b]));
      continue;
    }
    f.check();
    if (!DIFFERENT_BODY_409_CODES.includes(b.code ?? '') || b.type !== 'idempotency_error') {
      f.violation(idemEvidence(`different body under a used key got 409 ${b.code} / ${b.type} (expected ${DIFFERENT_BODY_409_CODES.join(' or ')}, idempotency_error)`, [c, b]));
    }
  }
};

/**
 * IDEM-5: a request arriving while another with its key is in flight gets 409 idempotency_key_in_use,
 * and only then: a 409 in_use with nothing in flight (the earlier request had ended) should have replayed.
 */
export const checkInFlight: IdemCheck = (reqs, f) => {
  for (const b of reqs) {
    const concurrent = reqs.filter((a) => a !== b && overlaps(a, b));
    const inUse = b.status === 409 && b.code === IN_FLIGHT_409_CODE;
    if (concurrent.length === 0 && !inUse) continue;
    f.check();
    if (concurrent.length > 0) {
      const differentEarlier = reqs.some((a) => a !== b && a.tStart < b.tStart && (otherBody(a, b) || crossPath(a, b)));
      if (b.status === 409 && b.code !== IN_FLIGHT_409_CODE && b.code !== 'duplicate_request' && !differentEarlier && concurrent.some((a) => sameBody(a, b))) {
        f.violation(idemEvidence(`409 ${b.code} for a same-body request while another with its key was in flight (expected ${IN_FLIGHT_409_CODE})`, [concurrent[0], b]));
      }
      continue;
    }
    // Justified only by a request that may still have been running at the server (no answer yet),
    // or by an earlier different body (the error reference lists in_use for that case too).
    // A server may release the key just after its answer left (a lock freed after the response is written):
    // a request sent within LOCK_RELEASE_SLACK_MS of that answer may still have found it held.
    const maybeRunning = reqs.some((a) => a !== b && a.tStart < b.tStart && (a.status === 0 || (!refusedInUse(a) && b.tStart - a.tEnd < LOCK_RELEASE_SLACK_MS)));
    const differentBody = reqs.some((a) => a !== b && a.tStart < b.tStart && (otherBody(a, b) || crossPath(a, b)) && (is2xx(a.status) || a.status === 0));
    if (!maybeRunning && !differentBody) {
      const prev = reqs.filter((a) => a !== b && a.tEnd <= b.tStart).pop();
      f.violation(idemEvidence(`409 ${IN_FLIGHT_409_CODE} although no request with this key was in flight` + (prev ? ` (the previous one was answered ${answer(prev)} ${Math.round(b.tStart - prev.tEnd)} ms before)` : ''), prev ? [prev, b] : [b]));
    }
  }
};

/** IDEM-6: however many requests share a key, at most one object comes back from them. */
export const checkSingleObject: IdemCheck = (reqs, f) => {
  if (reqs.length < 2) return;
  let concurrent = false;
  for (let i = 0; i < reqs.length && !concurrent; i++) for (let j = i + 1; j < reqs.length && reqs[j].tStart < reqs[i].tEnd; j++) if (overlaps(reqs[i], reqs[j])) concurrent = true;
  if (concurrent) f.check();
  const byId = new Map<string, IdemRequest>();
  for (const r of reqs) if (r.objectId && !byId.has(r.objectId)) byId.set(r.objectId, r);
  if (byId.size > 1) f.violation(idemEvidence(`${byId.size} objects were created under one Idempotency-Key: ${[...byId.keys()].join(', ')}`, [...byId.values()]));
};

/** IDEM-7: only 2xx answers are kept; after error answers (and nothing else), a retry executes again. */
export const checkErrorsNotKept: IdemCheck = (reqs, f) => {
  for (const b of reqs) {
    const before = reqs.filter((a) => a !== b && a.tStart < b.tStart);
    if (before.length === 0 || inconclusive(b)) continue;
    // Anything that may be kept or still running makes a refusal legitimate.
    if (before.some((a) => is2xx(a.status) || a.status === 0 || a.tEnd >= b.tStart) || inUseJustAfter(reqs, b)) continue;
    f.check();
    if (b.status === 409) {
      f.violation(idemEvidence(`retry after error answers (${before.map(answer).join(', ')}) was refused 409 ${b.code}: an error must not keep the key`, [...before.slice(-1), b]));
      continue;
    }
    const replayed = before.find((a) => a.requestId !== undefined && a.requestId === b.requestId);
    if (replayed) {
      f.violation(idemEvidence(`retry got the earlier error back (same request_id ${b.requestId}) instead of executing again`, [replayed, b]));
      continue;
    }
    // A kept error replayed under a fresh request_id: a valid body refused exactly as the earlier
    // bad-input probe under its key was (same status, code, param and message).
    // Only body-validation refusals (400, 422): a 401 or 403 refuses any body alike.
    const copied = b.badInput || b.errorSig === undefined || (b.status !== 400 && b.status !== 422) ? undefined : before.find((a) => a.badInput && otherBody(a, b) && a.errorSig === b.errorSig);
    if (copied) f.violation(idemEvidence(`a valid retry got the earlier bad-input probe's error back (${answer(b)}, same param and message) instead of executing again`, [copied, b]));
  }
};

/** IDEM-12 (observe): a 409 duplicate_request is a duplicate of something, and no second object exists. */
export const checkDuplicateRequest: IdemCheck = (reqs, f) => {
  for (const b of reqs) {
    if (b.status !== 409 || b.code !== 'duplicate_request') continue;
    f.check();
    if (!reqs.some((a) => a !== b && a.tStart < b.tStart)) f.violation(idemEvidence('409 duplicate_request for the first request with this key', [b]));
    const ids = new Set(reqs.map((r) => r.objectId).filter(Boolean));
    if (ids.size > 1) f.violation(idemEvidence(`409 duplicate_request, yet ${ids.size} objects were created under this key`, reqs.filter((r) => r.objectId || r === b)));
  }
};

/**
 * IDEM-8 / IDEM-9: one Idempotency-Key value used under two API keys (or two operations)
 * names independent requests: the later never replays the other's object nor is refused for it.
 */
export function checkIndependentScopes(ctx: OracleContext, f: Findings, by: 'key' | 'scope', scopes?: ReadonlySet<string>, involving?: ReadonlySet<string>): void {
  // Only Idempotency-Key values used in more than one tuple can clash.
  const groups = new Map<string, IdemRequest[][]>();
  for (const tuples of ctx.ledger.idemSharedValues()) {
    for (const reqs of tuples) {
      const r = reqs[0];
      if (scopes && !scopes.has(r.scope)) continue;
      const g = by === 'key' ? `${r.scope}\u0000${r.idemKey}` : `${r.key}\u0000${r.idemKey}`;
      let list = groups.get(g);
      if (!list) groups.set(g, (list = []));
      list.push(reqs);
    }
  }
  const label = (r: IdemRequest) => (by === 'key' ? r.key : r.scope);
  for (const tuples of groups.values()) {
    if (tuples.length < 2) continue;
    if (involving && !tuples.some((t) => involving.has(t[0].scope))) continue;
    for (const t of tuples) {
      const others = tuples.filter((o) => o !== t).flat();
      const first = t[0];
      if (!others.some((a) => a.tStart < first.tEnd)) continue;
      f.check();
      const theirs = new Map(others.filter((a) => a.objectId).map((a) => [a.objectId!, a]));
      const copied = t.find((b) => b.objectId && theirs.has(b.objectId));
      if (copied) {
        const orig = theirs.get(copied.objectId!)!;
        f.violation(idemEvidence(`Idempotency-Key "${first.idemKey}" under ${label(copied)} returned ${copied.objectId}, the object of ${label(orig)}`, [orig, copied]));
      } else if (first.status === 409 && first.type === 'idempotency_error' && !t.some((a) => a !== first && a.tStart < first.tStart)) {
        const clash = others.filter((a) => a.tStart < first.tEnd).pop()!;
        f.violation(idemEvidence(`first use of Idempotency-Key "${first.idemKey}" under ${label(first)} was refused 409 ${first.code}, clashing with its use under ${label(clash)}`, [clash, first]));
      }
    }
  }
}

export const PAYMENT_SCOPES: ReadonlySet<string> = new Set(['payment_create', 'hosted_create']);
export const REFUND_SCOPES: ReadonlySet<string> = new Set(['refund_create']);

/** An invariant body that runs one tuple check over every tuple (of some scopes). */
export function runTupleCheck(ctx: OracleContext, f: Findings, check: IdemCheck, scopes?: ReadonlySet<string>): void {
  if (check.needsTwo === true) {
    for (const reqs of ctx.ledger.idemRepeatedTuples()) if (!scopes || scopes.has(reqs[0].scope)) check(reqs, f);
    return;
  }
  for (const reqs of idemTuples(ctx, scopes)) check(reqs, f);
}
checkReplay.needsTwo = true;
checkDifferentBody.needsTwo = true;
checkSingleObject.needsTwo = true;
checkErrorsNotKept.needsTwo = true;
