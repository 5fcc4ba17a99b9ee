import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { checkDifferentBody, runTupleCheck } from '../lib/idempotency.ts';

/** IDEM-4: both 409 codes the spec names for a different body are accepted. */
const invariant: Invariant = {
  id: 'idem-different-body',
  title: 'Same key, different body: 409 idempotency_error (idempotency_key_reused or idempotency_key_in_use)',
  rules: ['IDEM-4'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        runTupleCheck(ctx, f, checkDifferentBody);
        return f.outcome('no request sent a different body under an Idempotency-Key already answered 2xx');
      },
    };
  },
};
export default invariant;
