import type { Finding } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { REFUND_PATH_NAMES, refundPaths } from '../lib/refund-paths.ts';
import { refundEvidence } from '../lib/refunds.ts';

/**
 * The refund paths the target serves (src/oracle/lib/refund-paths.ts): the spec names two and calls
 * neither authoritative, so serving one is conforming. Reported as the `refund-path` finding. REF-1
 * is broken when refunds were asked and no path is served, or when a path that answered 404/405
 * (not served) still changed the payment: a refund appeared on it though no refund was accepted.
 */
const invariant: Invariant = {
  id: 'refund-path-served',
  title: 'At least one refund path is served, and an unserved one (404/405) leaves the payment untouched',
  rules: ['REF-1'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const facts = refundPaths(ctx);
        const { ledger } = ctx;
        const all = [facts.payment, facts.refunds];
        const tried = all.filter((p) => p.tried > 0);
        if (tried.length === 0) return f.outcome('no refund request reached the service');
        f.check();
        const served = all.filter((p) => p.served);
        const unserved = all.filter((p) => !p.served);
        if (served.every((p) => p.tried === 0) && unserved.length > 0) {
          f.violation(refundEvidence(`neither refund path is served: ${unserved.map((p) => `${REFUND_PATH_NAMES[p.path]} answered ${p.refusals[0].status}`).join(', ')} for payments of the asking key`, unserved.map((p) => p.refusals[0])));
        }
        // A 404/405 must have no side effect: a payment no refund was accepted for shows no refund.
        for (const p of unserved) {
          for (const q of p.refusals) {
            const reqs = ledger.refundRequests.get(q.paymentId) ?? [];
            if (reqs.some((r) => r.status >= 200 && r.status < 300) || reqs.some((r) => r.status === 0 || r.status >= 500)) continue;
            const refunds = [...ledger.refunds.values()].filter((r) => r.paymentId === q.paymentId);
            f.check();
            if (refunds.length > 0) {
              f.violation(refundEvidence(`${REFUND_PATH_NAMES[p.path]} answered ${q.status} (not served) for payment ${q.paymentId}, yet the payment shows refund ${refunds[0].id} though no refund of it was accepted`, [q], [refunds[0].firstSeq]));
            }
          }
        }
        const outcome = f.outcome('no refund request reached the service');
        const finding: Finding = {
          id: 'refund-path',
          level: 'info',
          text:
            unserved.length === 0
              ? `The service serves ${tried.map((p) => REFUND_PATH_NAMES[p.path]).join(' and ')}${tried.length < 2 ? ' (the other path was not tried)' : ''}; refunds were judged on ${tried.length < 2 ? 'it' : 'both'}.`
              : `The service serves ${served.map((p) => REFUND_PATH_NAMES[p.path]).join(' and ') || 'no refund path'}; ${unserved.map((p) => `${REFUND_PATH_NAMES[p.path]} answered ${[...new Set(p.refusals.map((q) => q.status))].join('/')} for payments that exist`).join(', ')}, so refunds were judged on the served path alone.`,
          rules: ['REF-1'],
          evidence: unserved.length
            ? refundEvidence('the refusals that show a path is not served', unserved.flatMap((p) => p.refusals.slice(0, 3)))
            : { message: 'refund answers on each path', seqs: tried.map((p) => p.firstRouted?.seq).filter((s): s is number => s !== undefined) },
        };
        outcome.findings = [finding];
        return outcome;
      },
    };
  },
};
export default invariant;
