import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { checkIndependentScopes } from '../lib/idempotency.ts';

/** IDEM-9: judged when the value was used elsewhere before (or while) this use started. */
const invariant: Invariant = {
  id: 'idem-scoped-per-operation',
  title: 'Keys are scoped per operation: one value on two operations gives two independent results',
  rules: ['IDEM-9'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        checkIndependentScopes(ctx, f, 'scope');
        return f.outcome('no Idempotency-Key value was used on two operations of one API key');
      },
    };
  },
};
export default invariant;
