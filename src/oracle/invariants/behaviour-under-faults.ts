import { type FaultRecord } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { authVariant, errorCode, isApiCall, isAuthenticatedAnswer, is2xx } from '../lib/exchange.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { cachedResponse, idemEvidence, idemTuples } from '../lib/idempotency.ts';

type Rec = Parameters<typeof evidence>[1][number];

/**
 * FT-5: authentication, rate limiting and idempotency behave the same while the upstream is
 * failing: during upstream fault windows, auth probes still get 401 invalid_api_key, answers
 * past authentication still carry the rate headers (and 429s remain well formed), and a
 * same-body retry after a completed 2xx still gets the same object back (never a 409).
 */
const invariant: Invariant = {
  id: 'behaviour-under-faults',
  title: 'Authentication, rate limiting and idempotency behave the same while the upstream is failing',
  rules: ['FT-5'],
  create(ctx) {
    const f = new Findings();
    /** Candidates judged once the fault windows are known: time span and the problem, if any. */
    const seen: { tStart: number; tEnd: number; problem: string | null; rec: Rec | null }[] = [];
    return {
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isApiCall(rec) || rec.status === 0) return;
        if (authVariant(rec) !== 'ok') {
          const ok = rec.status === 401 && errorCode(rec) === 'invalid_api_key';
          seen.push({ tStart: rec.tStart, tEnd: rec.tEnd, problem: ok ? null : `auth probe "${authVariant(rec)}" answered ${rec.status} ${show(errorCode(rec))}`, rec: ok ? null : rec });
          return;
        }
        if (!isAuthenticatedAnswer(rec)) return;
        const r = rec.rate;
        let problem: string | null = null;
        if (!r || r.limit === null || r.remaining === null || r.reset === null) problem = `${rec.status} answer without the rate headers`;
        else if (rec.status === 429 && (errorCode(rec) !== 'rate_limit_exceeded' || rec.retryAfter === null || r.remaining !== 0)) problem = `malformed 429 (${show(errorCode(rec))}, Retry-After ${show(rec.retryAfter)})`;
        seen.push({ tStart: rec.tStart, tEnd: rec.tEnd, problem, rec: problem ? rec : null });
      },
      finish() {
        const upstream: FaultRecord[] = ctx.ledger.faults.filter((x) => x.link === 'upstream');
        if (upstream.length === 0) return f.outcome('the run injected no upstream fault');
        for (const s of seen) {
          if (!faultOverlapping(upstream, s.tStart, s.tEnd)) continue;
          f.check();
          if (s.problem) f.violation(evidence(`during an upstream fault: ${s.problem}`, s.rec ? [s.rec] : []));
        }
        for (const reqs of idemTuples(ctx)) {
          const c = cachedResponse(reqs);
          if (!c) continue;
          for (const b of reqs) {
            if (b === c || b.tStart <= c.tEnd || b.digest === undefined || b.digest !== c.digest || !faultOverlapping(upstream, b.tStart, b.tEnd)) continue;
            if (b.status === 0 || b.status >= 500 || b.status === 429) continue;
            f.check();
            if (is2xx(b.status) ? b.objectId !== c.objectId : b.status === 409 && b.code !== 'duplicate_request') {
              f.violation(idemEvidence(`during an upstream fault a same-body retry got ${b.status} ${b.code ?? b.objectId ?? ''} instead of the replayed ${c.objectId}`, [c, b]));
            }
          }
        }
        return f.outcome('no authenticated request, auth probe or idempotent retry ran while an upstream fault was active');
      },
    };
  },
};
export default invariant;
