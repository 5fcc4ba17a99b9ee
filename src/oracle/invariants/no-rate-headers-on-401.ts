import type { Invariant } from '../types.ts';
import { isApiCall } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** AUTH-4: rate headers are sent only after authentication succeeds, so a 401 carries none. */
const invariant: Invariant = {
  id: 'no-rate-headers-on-401',
  title: '401 responses carry no X-RateLimit-* header',
  rules: ['AUTH-4'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      answers: 'errors',
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.status !== 401 || !isApiCall(rec)) return;
        f.check();
        const r = rec.rate;
        if (!r) return;
        const present = (['limit', 'remaining', 'reset'] as const).filter((h) => r[h] !== null || r.raw?.[h] !== undefined);
        if (present.length) f.violation(evidence(`401 carried X-RateLimit-${present.map((h) => h[0].toUpperCase() + h.slice(1)).join(', X-RateLimit-')}`, [rec]));
      },
      finish: () => f.outcome('no request was answered 401'),
    };
  },
};
export default invariant;
