import { LIMITS } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { errorCode, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** IDEM-2: an Idempotency-Key over the length limit is refused with 400. */
const invariant: Invariant = {
  id: 'idem-key-length',
  title: `An Idempotency-Key longer than ${LIMITS.idempotencyKeyMaxLength} characters is refused with 400`,
  rules: ['IDEM-2'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      answers: 'idem-probes',
      ops: ['create', 'create_hpp', 'refund', 'refund_create', 'raw'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.sent.idemVariant !== 'oversized') return;
        if (isInconclusive(rec) || rec.status === 401 || rec.status === 403) return;
        f.check();
        if (rec.status !== 400) f.violation(evidence(`Idempotency-Key over ${LIMITS.idempotencyKeyMaxLength} characters answered ${rec.status} ${show(errorCode(rec))} (expected 400)`, [rec]));
      },
      finish: () => f.outcome(`no POST was sent with an Idempotency-Key over ${LIMITS.idempotencyKeyMaxLength} characters`),
    };
  },
};
export default invariant;
