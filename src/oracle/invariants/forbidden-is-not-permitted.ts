import type { Invariant } from '../types.ts';
import { errorCode, errorType, isApiCall } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** AUTH-6 (observe): which operations a key may not perform is not shown, so this judges only the 403s that happen. */
const invariant: Invariant = {
  id: 'forbidden-is-not-permitted',
  title: 'A 403 has code not_permitted and type authentication_error',
  rules: ['AUTH-6'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      answers: 'errors',
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.status !== 403 || !isApiCall(rec)) return;
        f.check();
        if (errorCode(rec) !== 'not_permitted' || errorType(rec) !== 'authentication_error') {
          f.violation(evidence(`403 with code ${show(errorCode(rec))}, type ${show(errorType(rec))} (expected not_permitted / authentication_error)`, [rec]));
        }
      },
      finish: () => f.outcome('the target answered no request with 403 (observe-only rule)'),
    };
  },
};
export default invariant;
