import type { IdemRequest } from '../ledger.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { PAYMENT_SCOPES, idemEvidence, idemTuples } from '../lib/idempotency.ts';

/**
 * A refusal that can only be about the request itself: 4xx other than 401/403 (access), 404,
 * 409 (judged apart), 429 (rate) and a card decline (422 card_error: the card's outcome).
 */
function refusedForReference(r: IdemRequest): boolean {
  if (r.status < 400 || r.status >= 500) return false;
  if ([401, 403, 404, 409, 429].includes(r.status)) return false;
  return !(r.status === 422 && r.type === 'card_error');
}

/**
 * IDEM-10: merchant_reference never deduplicates; creates with one reference and two
 * Idempotency-Keys make two payments: the later one returning the first payment, or refused
 * (409, or another 4xx that is not about access, rate or the card) once a payment with the
 * reference exists, is a violation. Bad-input probes carry no reference here (the ledger).
 */
const invariant: Invariant = {
  id: 'merchant-reference-no-dedup',
  title: 'merchant_reference never deduplicates: one reference under two Idempotency-Keys gives two payments',
  rules: ['IDEM-10'],
  create(ctx) {
    const f = new Findings();
    return {
      finish() {
        const byRef = new Map<string, IdemRequest[][]>();
        for (const reqs of idemTuples(ctx, PAYMENT_SCOPES)) {
          const ref = reqs[0].merchantReference;
          if (ref === undefined || ref === null) continue;
          const k = `${reqs[0].key}\u0000${String(ref)}`;
          let list = byRef.get(k);
          if (!list) byRef.set(k, (list = []));
          list.push(reqs);
        }
        for (const tuples of byRef.values()) {
          if (tuples.length < 2) continue;
          tuples.sort((a, b) => a[0].tStart - b[0].tStart);
          for (let i = 1; i < tuples.length; i++) {
            const t = tuples[i];
            const earlier = tuples.slice(0, i).flat();
            f.check();
            const ids = new Map(earlier.filter((r) => r.objectId).map((r) => [r.objectId!, r]));
            const same = t.find((r) => r.objectId && ids.has(r.objectId));
            if (same) {
              f.violation(idemEvidence(`merchant_reference ${String(same.merchantReference)} under a new Idempotency-Key returned the existing payment ${same.objectId}`, [ids.get(same.objectId!)!, same]));
            } else if (t[0].status === 409) {
              f.violation(idemEvidence(`a create reusing merchant_reference ${String(t[0].merchantReference)} under a new Idempotency-Key was refused 409 ${t[0].code}`, [earlier[earlier.length - 1], t[0]]));
            } else {
              // Refused for the reuse itself: a conclusive 4xx that is not about the key, the
              // rate, access, or the card, after an earlier create with the reference was made.
              const made = earlier.find((r) => r.status >= 200 && r.status < 300 && r.objectId);
              const refused = t.find((r) => refusedForReference(r));
              if (made && refused && !t.some((r) => r.status >= 200 && r.status < 300)) {
                f.violation(idemEvidence(`a create reusing merchant_reference ${String(refused.merchantReference)} under a new Idempotency-Key was refused ${refused.status} ${refused.code} (two creates give two payments)`, [made, refused]));
              }
            }
          }
        }
        return f.outcome('no two creates shared a merchant_reference under different Idempotency-Keys');
      },
    };
  },
};
export default invariant;
