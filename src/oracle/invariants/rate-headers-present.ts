import type { Invariant } from '../types.ts';
import { isAuthenticatedAnswer } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';
import { UnservedPathHold } from '../lib/refund-paths.ts';

const HEADERS = ['limit', 'remaining', 'reset'] as const;

/** RL-4: every answer past authentication (2xx, 4xx, 5xx) carries the three rate headers; a refund path the service does not serve is not the API. */
const invariant: Invariant = {
  id: 'rate-headers-present',
  title: 'X-RateLimit-Limit, -Remaining and -Reset are on every authenticated /v1/* response',
  rules: ['RL-4'],
  create(ctx) {
    const f = new Findings();
    const hold = new UnservedPathHold();
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isAuthenticatedAnswer(rec)) return;
        f.check();
        const r = rec.rate;
        // All three read: nothing is missing (most answers; spares the list below).
        if (r && r.limit !== null && r.remaining !== null && r.reset !== null) return;
        const missing = HEADERS.filter((h) => !r || (r[h] === null && r.raw?.[h] === undefined));
        if (missing.length) hold.violation(f, rec, evidence(`${rec.status} answer to ${rec.op} lacks X-RateLimit-${missing.map((h) => h[0].toUpperCase() + h.slice(1)).join(', X-RateLimit-')}`, [rec]));
      },
      finish() {
        hold.release(ctx, f);
        return f.outcome('no authenticated request got an answer');
      },
    };
  },
};
export default invariant;
