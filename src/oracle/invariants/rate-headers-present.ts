import type { Invariant } from '../types.ts';
import { isAuthenticatedAnswer } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';

const HEADERS = ['limit', 'remaining', 'reset'] as const;

/** RL-4: every answer past authentication (2xx, 4xx, 5xx) carries the three rate headers. */
const invariant: Invariant = {
  id: 'rate-headers-present',
  title: 'X-RateLimit-Limit, -Remaining and -Reset are on every authenticated /v1/* response',
  rules: ['RL-4'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isAuthenticatedAnswer(rec)) return;
        f.check();
        const r = rec.rate;
        const missing = HEADERS.filter((h) => !r || (r[h] === null && r.raw?.[h] === undefined));
        if (missing.length) f.violation(evidence(`${rec.status} answer to ${rec.op} lacks X-RateLimit-${missing.map((h) => h[0].toUpperCase() + h.slice(1)).join(', X-RateLimit-')}`, [rec]));
      },
      finish: () => f.outcome('no authenticated request got an answer'),
    };
  },
};
export default invariant;
