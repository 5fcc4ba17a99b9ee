import { LIMITS } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { errorCode, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/**
 * IDEM-2: an Idempotency-Key over the length limit is refused with 400, and one of exactly the
 * limit ("at most 255 characters") is not: a 400 that names the Idempotency-Key (or answers
 * paystorm's own `idem-max` probe, whose body is valid) refused an allowed key.
 */
const invariant: Invariant = {
  id: 'idem-key-length',
  title: `An Idempotency-Key longer than ${LIMITS.idempotencyKeyMaxLength} characters is refused with 400`,
  rules: ['IDEM-2'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['create', 'create_hpp', 'refund', 'refund_create', 'raw'],
      onRecord(rec) {
        if (rec.kind !== 'exchange') return;
        if (rec.idemKey !== undefined && rec.idemKey.length === LIMITS.idempotencyKeyMaxLength && rec.sent.idemVariant === undefined && rec.sent.badInput === undefined) {
          if (isInconclusive(rec) || rec.status === 401 || rec.status === 403 || rec.status === 429) return;
          f.check();
          const named = /idempotency/i.test(`${String(rec.error?.param ?? '')} ${String(rec.error?.message ?? '')}`);
          if (rec.status === 400 && (named || rec.group === 'idem-max')) {
            f.violation(evidence(`Idempotency-Key of exactly ${LIMITS.idempotencyKeyMaxLength} characters (the most allowed) answered 400 ${show(errorCode(rec))}`, [rec]));
          }
          return;
        }
        if (rec.sent.idemVariant !== 'oversized') return;
        if (isInconclusive(rec) || rec.status === 401 || rec.status === 403) return;
        f.check();
        if (rec.status !== 400) f.violation(evidence(`Idempotency-Key over ${LIMITS.idempotencyKeyMaxLength} characters answered ${rec.status} ${show(errorCode(rec))} (expected 400)`, [rec]));
      },
      finish: () => f.outcome(`no POST was sent with an Idempotency-Key over ${LIMITS.idempotencyKeyMaxLength} characters`),
    };
  },
};
export default invariant;
