import type { Invariant } from '../types.ts';
import { errorCode, errorType, isApiCall } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** RL-7: a 429 says rate_limit_exceeded / rate_limit_error, with Retry-After in seconds and X-RateLimit-Remaining 0. */
const invariant: Invariant = {
  id: 'rate-limited-response',
  title: 'Over the limit: 429 rate_limit_exceeded, Retry-After in seconds, X-RateLimit-Remaining 0',
  rules: ['RL-7'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      answers: 'errors',
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.status !== 429 || !isApiCall(rec)) return;
        f.check();
        const problems: string[] = [];
        if (errorCode(rec) !== 'rate_limit_exceeded') problems.push(`code ${show(errorCode(rec))}`);
        if (errorType(rec) !== 'rate_limit_error') problems.push(`type ${show(errorType(rec))}`);
        if (rec.retryAfter === null || !(rec.retryAfter >= 0)) problems.push('no Retry-After in seconds');
        if (rec.rate?.remaining !== 0) problems.push(`X-RateLimit-Remaining ${show(rec.rate?.remaining ?? null)}`);
        if (problems.length) f.violation(evidence(`429 with ${problems.join(', ')}`, [rec]));
      },
      finish: () => f.outcome('no request was answered 429'),
    };
  },
};
export default invariant;
