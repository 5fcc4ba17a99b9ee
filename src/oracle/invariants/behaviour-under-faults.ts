import type { Evidence } from '../../spec/index.ts';
import { type FaultRecord } from '../../history/index.ts';
import type { Invariant } from '../types.ts';
import { authVariant, errorCode, isApiCall, isAuthenticatedAnswer, is2xx } from '../lib/exchange.ts';
import { SpillColumns } from '../lib/spill.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { cachedResponse, idemEvidence, idemTuples, inUseJustAfter, sameBody } from '../lib/idempotency.ts';

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
    /**
     * Everything judged once the fault windows are known: spans of all, and of the wrong ones what
     * is wrong (the same few texts, each kept once) and their evidence, not the whole record. The
     * spans, one per answer, are kept on disk (lib/spill.ts).
     */
    const spans = new SpillColumns(['tStart', 'tEnd'] as const);
    const wrong: { tStart: number; tEnd: number; problem: string; ev: Evidence }[] = [];
    const problems = new Map<string, string>();
    const note = (rec: Rec & { tStart: number; tEnd: number }, problem: string | null) => {
      spans.pushValues(rec.tStart, rec.tEnd);
      if (!problem) return;
      let text = problems.get(problem);
      if (text === undefined) problems.set(problem, (text = problem));
      wrong.push({ tStart: rec.tStart, tEnd: rec.tEnd, problem: text, ev: evidence('', [rec]) });
    };
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isApiCall(rec) || rec.status === 0) return;
        if (authVariant(rec) !== 'ok') {
          const ok = rec.status === 401 && errorCode(rec) === 'invalid_api_key';
          note(rec, ok ? null : `auth probe "${authVariant(rec)}" answered ${rec.status} ${show(errorCode(rec))}`);
          return;
        }
        if (!isAuthenticatedAnswer(rec)) return;
        const r = rec.rate;
        let problem: string | null = null;
        if (!r || r.limit === null || r.remaining === null || r.reset === null) problem = `${rec.status} answer without the rate headers`;
        else if (rec.status === 429 && (errorCode(rec) !== 'rate_limit_exceeded' || rec.retryAfter === null || r.remaining !== 0)) problem = `malformed 429 (${show(errorCode(rec))}, Retry-After ${show(rec.retryAfter)})`;
        note(rec, problem);
      },
      finish() {
        const upstream: FaultRecord[] = ctx.ledger.faults.filter((x) => x.link === 'upstream');
        if (upstream.length === 0) return f.outcome('the run injected no upstream fault');
        for (const { cols, n } of spans.chunks()) {
          const [ts, te] = cols;
          for (let i = 0; i < n; i++) if (faultOverlapping(upstream, ts[i], te[i])) f.check();
        }
        for (const w of wrong) if (faultOverlapping(upstream, w.tStart, w.tEnd)) f.violation({ ...w.ev, message: `during an upstream fault: ${w.problem}` });
        for (const reqs of idemTuples(ctx)) {
          const c = cachedResponse(reqs);
          if (!c) continue;
          for (const b of reqs) {
            // The same body on the same refund path (the other path may answer 409: lib/idempotency.ts crossPath).
            if (b === c || b.tStart <= c.tEnd || !sameBody(b, c) || !faultOverlapping(upstream, b.tStart, b.tEnd)) continue;
            if (b.status === 0 || b.status >= 500 || b.status === 429 || inUseJustAfter(reqs, b)) continue;
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
