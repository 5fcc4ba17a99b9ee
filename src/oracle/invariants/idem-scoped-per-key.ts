import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { checkIndependentScopes } from '../lib/idempotency.ts';

/** IDEM-8: judged when the value was used elsewhere before (or while) this use started. */
const invariant: Invariant = {
  id: 'idem-scoped-per-key',
  title: 'Keys are scoped per API key: one value under another key is an independent request',
  rules: ['IDEM-8'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        checkIndependentScopes(ctx, f, 'key');
        return f.outcome('no Idempotency-Key value was used under two API keys');
      },
    };
  },
};
export default invariant;
