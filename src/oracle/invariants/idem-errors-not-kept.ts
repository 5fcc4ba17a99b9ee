import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { checkErrorsNotKept, runTupleCheck } from '../lib/idempotency.ts';

/** IDEM-7: a refusal (409) or the same error replayed (same request_id) shows the error was kept. */
const invariant: Invariant = {
  id: 'idem-errors-not-kept',
  title: 'Only 2xx responses are kept: after an error response, a retry with the same key executes again',
  rules: ['IDEM-7'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        runTupleCheck(ctx, f, checkErrorsNotKept);
        return f.outcome('no request repeated an Idempotency-Key after only error answers');
      },
    };
  },
};
export default invariant;
