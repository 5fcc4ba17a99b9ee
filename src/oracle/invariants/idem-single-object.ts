import type { Invariant } from '../types.ts';
import { announceViolation, Findings } from '../lib/findings.ts';
import { checkSingleObject, idemEvidence, runTupleCheck } from '../lib/idempotency.ts';
import { createdObjectId, scopeOf } from '../lib/exchange.ts';

/**
 * IDEM-6: exercised by requests that truly overlapped; two objects under one key fail however they were sent.
 * Judged and counted at the end, one violation per key (its evidence names every object); a second
 * object is also told live the moment it comes back, since nothing later can undo it (a double charge
 * stops `--abort-on-violation` at once).
 */
const invariant: Invariant = {
  id: 'idem-single-object',
  title: 'However many concurrent requests share one key, at most one object is created',
  rules: ['IDEM-6'],
  create(ctx) {
    const f = new Findings();
    /** Tuples already told live (one announcement per key, as the end counts one violation per key). */
    const told = new Set<string>();
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.idemKey === undefined) return;
        const id = createdObjectId(rec);
        const scope = id === undefined ? undefined : scopeOf(rec);
        if (scope === undefined) return;
        // The ledger has seen this record already (the judge feeds it first).
        const reqs = ctx.ledger.idemRequests(rec.key, scope, rec.idemKey);
        const first = reqs?.find((r) => r.objectId !== undefined && r.objectId !== id);
        const tuple = `${rec.key}\u0000${scope}\u0000${rec.idemKey}`;
        if (!first || told.has(tuple)) return;
        told.add(tuple);
        const self = reqs!.find((r) => r.seq === rec.seq);
        announceViolation(idemEvidence(`2 objects were created under one Idempotency-Key: ${first.objectId}, ${id}`, self ? [first, self] : [first]));
      },
      finish() {
        runTupleCheck(ctx, f, checkSingleObject);
        return f.outcome('no two requests with one Idempotency-Key were in flight at once');
      },
    };
  },
};
export default invariant;
