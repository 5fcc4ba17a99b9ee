import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { REFUND_SCOPES, checkDifferentBody, checkErrorsNotKept, checkInFlight, checkIndependentScopes, checkReplay, checkSingleObject, runTupleCheck } from '../lib/idempotency.ts';

/** REF-7: refund create is idempotent in its own scope; IDEM-3..9 apply to it (both refund paths are one operation). */
const invariant: Invariant = {
  id: 'refund-idempotency',
  title: 'Refund create is idempotent under its own operation scope (IDEM-3 to IDEM-9 for refunds)',
  rules: ['REF-7'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        for (const check of [checkReplay, checkDifferentBody, checkInFlight, checkSingleObject, checkErrorsNotKept]) runTupleCheck(ctx, f, check, REFUND_SCOPES);
        checkIndependentScopes(ctx, f, 'key', REFUND_SCOPES);
        // IDEM-9 across refund and payment scopes: a refund key value reused on a create stays independent.
        checkIndependentScopes(ctx, f, 'scope', undefined, REFUND_SCOPES);
        return f.outcome('no refund request repeated an Idempotency-Key (value) in a way the idempotency rules judge');
      },
    };
  },
};
export default invariant;
