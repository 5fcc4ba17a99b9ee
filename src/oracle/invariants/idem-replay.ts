import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { checkReplay, runTupleCheck } from '../lib/idempotency.ts';

/** IDEM-3: judged only for retries sent after the original answer came back. */
const invariant: Invariant = {
  id: 'idem-replay',
  title: 'Same key, same body: the original 2xx response is replayed and no new object exists',
  rules: ['IDEM-3'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        runTupleCheck(ctx, f, checkReplay);
        return f.outcome('no request repeated an Idempotency-Key and body after its first 2xx answer');
      },
    };
  },
};
export default invariant;
