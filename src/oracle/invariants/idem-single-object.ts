import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { checkSingleObject, runTupleCheck } from '../lib/idempotency.ts';

/** IDEM-6: exercised by requests that truly overlapped; two objects under one key fail however they were sent. */
const invariant: Invariant = {
  id: 'idem-single-object',
  title: 'However many concurrent requests share one key, at most one object is created',
  rules: ['IDEM-6'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        runTupleCheck(ctx, f, checkSingleObject);
        return f.outcome('no two requests with one Idempotency-Key were in flight at once');
      },
    };
  },
};
export default invariant;
