import { CREATE_STATUSES } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { is2xx, scopeOf } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';

/**
 * PAY-6: a Direct API create answers with a status allowed for a new payment. Replays are
 * skipped: only the first 2xx under a key shows the status at creation for certain.
 */
const invariant: Invariant = {
  id: 'create-status-allowed',
  title: 'The create response has a status allowed for a new payment (A: SUCCEEDED, REQUIRES_ACTION, PROCESSING, PENDING, FAILED; B: pending, requires_action)',
  rules: ['PAY-6'],
  create(ctx) {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['create'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'create' || !is2xx(rec.status) || !rec.payment) return;
        // A replay: another request under its key was answered 2xx before (the ledger holds them all).
        const scope = scopeOf(rec);
        const reqs = scope && rec.idemKey !== undefined ? ctx.ledger.idemRequests(rec.key, scope, rec.idemKey) : undefined;
        if (reqs && reqs.some((r) => r.seq !== rec.seq && is2xx(r.status) && r.tEnd <= rec.tEnd)) return;
        f.check();
        const p = rec.payment;
        if (!CREATE_STATUSES[p.presentation].has(p.status)) {
          f.violation(evidence(`create answered status ${p.wireStatus}, not one presentation ${p.presentation} allows for a new payment (${[...CREATE_STATUSES[p.presentation]].join(', ')})`, [rec]));
        }
      },
      finish: () => f.outcome('no Direct API create was answered 2xx with a Payment'),
    };
  },
};
export default invariant;
