import type { Invariant } from '../types.ts';
import { errorCode, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/**
 * TEST-2: in test mode any future expiry, any CVC of the right length (4 digits for
 * American Express, else 3) and any holder name are accepted: a create whose card details
 * are valid in that sense is not refused over them (any 4xx but a conflict).
 */
const invariant: Invariant = {
  id: 'sandbox-accepts-card-details',
  title: 'Test mode accepts any future expiry, any CVC of the right length and any holder name',
  rules: ['TEST-2'],
  create(ctx) {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'create' || !rec.sent.cardMeta || !rec.sent.cardOutcome || rec.sent.badInput) return;
        if (ctx.keys.get(rec.key)?.mode !== 'test' || isInconclusive(rec) || [401, 403, 409].includes(rec.status)) return;
        const m = rec.sent.cardMeta;
        const at = new Date(rec.wall);
        const future = m.expYear > at.getUTCFullYear() || (m.expYear === at.getUTCFullYear() && m.expMonth >= at.getUTCMonth() + 1);
        const cvcOk = m.cvcLength === (rec.sent.cardBrand === 'amex' ? 4 : 3);
        if (!future || !cvcOk || m.expMonth < 1 || m.expMonth > 12) return;
        f.check();
        if (rec.status >= 400) {
          f.violation(evidence(`test card (exp ${m.expMonth}/${m.expYear}, ${m.cvcLength}-digit CVC, holder ${JSON.stringify(m.holderName)}) was refused ${rec.status} ${show(errorCode(rec))} param ${show(rec.error?.param)}`, [rec]));
        }
      },
      finish: () => f.outcome('no test-mode create recorded its card details (sent.cardMeta) with a sandbox card'),
    };
  },
};
export default invariant;
