import type { Invariant } from '../types.ts';
import { errorCode, errorType, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** IDEM-1: a POST sent without Idempotency-Key is refused 400 parameter_missing and creates nothing. */
const invariant: Invariant = {
  id: 'idem-key-required',
  title: 'A POST without Idempotency-Key gives 400 parameter_missing, type invalid_request_error',
  rules: ['IDEM-1'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      answers: 'idem-probes',
      ops: ['create', 'create_hpp', 'refund', 'refund_create', 'raw'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.sent.idemVariant !== 'missing') return;
        if (isInconclusive(rec) || rec.status === 401 || rec.status === 403) return;
        f.check();
        if (rec.status !== 400 || errorCode(rec) !== 'parameter_missing' || errorType(rec) !== 'invalid_request_error') {
          f.violation(evidence(`POST without Idempotency-Key answered ${rec.status} ${show(errorCode(rec))} / ${show(errorType(rec))} (expected 400 parameter_missing / invalid_request_error)`, [rec]));
        }
      },
      finish: () => f.outcome('no POST was sent without an Idempotency-Key'),
    };
  },
};
export default invariant;
