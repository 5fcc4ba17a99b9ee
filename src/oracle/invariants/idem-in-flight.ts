import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { checkInFlight, runTupleCheck } from '../lib/idempotency.ts';

/** IDEM-5: judged from real overlap in time of the recorded requests. */
const invariant: Invariant = {
  id: 'idem-in-flight',
  title: 'Same key while the first request is in flight: 409 idempotency_key_in_use, and only then',
  rules: ['IDEM-5'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        runTupleCheck(ctx, f, checkInFlight);
        return f.outcome('no two requests with one Idempotency-Key were in flight at once, and none got 409 idempotency_key_in_use');
      },
    };
  },
};
export default invariant;
