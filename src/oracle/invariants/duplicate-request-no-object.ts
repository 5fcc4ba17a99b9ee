import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { checkDuplicateRequest, runTupleCheck } from '../lib/idempotency.ts';

/** IDEM-12 (observe): judged only when the target answers duplicate_request. */
const invariant: Invariant = {
  id: 'duplicate-request-no-object',
  title: 'A 409 duplicate_request only where no new object was created for the repeated request',
  rules: ['IDEM-12'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        runTupleCheck(ctx, f, checkDuplicateRequest);
        return f.outcome('the target answered no request with 409 duplicate_request (observe-only rule)');
      },
    };
  },
};
export default invariant;
