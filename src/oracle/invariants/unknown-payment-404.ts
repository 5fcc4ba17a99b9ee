import type { Invariant } from '../types.ts';
import { errorCode, errorType } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { judgeProbe, probeRule } from '../lib/probes.ts';

/** PAY-17: GET /v1/payments/{id} of an unknown id gives 404 resource_missing (probes), and every 404 of a retrieve says so. */
const invariant: Invariant = {
  id: 'unknown-payment-404',
  title: 'Retrieving an unknown payment id gives 404 resource_missing',
  rules: ['PAY-17'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['retrieve'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'retrieve') return;
        if (probeRule(rec) === 'PAY-17') return judgeProbe(rec, 'PAY-17', f);
        if (rec.status !== 404) return;
        f.check();
        if (errorCode(rec) !== 'resource_missing' || errorType(rec) !== 'invalid_request_error') {
          f.violation(evidence(`404 for payment ${rec.sent.paymentId} has code ${show(errorCode(rec))}, type ${show(errorType(rec))} (expected resource_missing / invalid_request_error)`, [rec]));
        }
      },
      finish: () => f.outcome('no payment was retrieved by an unknown id'),
    };
  },
};
export default invariant;
