import type { Invariant } from '../types.ts';
import { errorCode, is2xx } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** FT-1: every payment answered with 201 can be retrieved afterwards by the key that made it; none is lost, during or after faults. */
const invariant: Invariant = {
  id: 'created-payments-retrievable',
  title: 'Every payment answered with 201 can be retrieved afterwards (none is lost, also under faults)',
  rules: ['FT-1'],
  create(ctx) {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['retrieve'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'retrieve' || !rec.sent.paymentId) return;
        const p = ctx.ledger.payments.get(rec.sent.paymentId);
        if (!p || p.key !== rec.key || rec.tStart <= p.tEnd) return;
        if (rec.status === 404) {
          f.check();
          f.violation(evidence(`payment ${p.id}, created at seq ${p.seq}, was not found (${show(errorCode(rec))})`, [rec], { seqs: [p.seq] }));
        } else if (is2xx(rec.status)) {
          f.check();
          if (rec.payment && rec.payment.id !== p.id) f.violation(evidence(`retrieving ${p.id} returned payment ${rec.payment.id}`, [rec]));
        }
      },
      finish: () => f.outcome('no payment created by the run was retrieved afterwards by its key'),
    };
  },
};
export default invariant;
