import type { Invariant } from '../types.ts';
import { errorCode, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/**
 * TEST-2: in test mode any future expiry, any CVC of the right length (4 digits for
 * American Express, else 3) and any holder name are accepted: a create whose card details
 * are valid in that sense is not refused over them (any 4xx but a conflict).
 *
 * A card outside the cards file (no `cardOutcome`: the flows scenario's American Express probe
 * with a 4-digit CVC) has an unpredictable outcome on a sandbox ("other numbers ..., possibly
 * generic_decline"), and a sandbox may even refuse a number it does not know. So for such a card
 * only a refusal over the CVC itself (a param naming the CVC, or a CVC decline) is judged: a CVC
 * of the right length is accepted whatever the number's outcome.
 */
const CARD_PARAM = /(^|[.\[_])(card|number|exp_month|exp_year|cvc|holder_name)(\b|[.\]])/;
const CARD_DETAIL_DECLINES = new Set(['expired_card', 'invalid_number', 'incorrect_cvc', 'invalid_cvc', 'invalid_expiry_month', 'invalid_expiry_year']);
const CVC_PARAM = /(^|[.\[_])cvc(\b|[.\]])/;
const CVC_DECLINES = new Set(['incorrect_cvc', 'invalid_cvc']);

/** Whether an error answer is about the CVC itself (a param naming it, or a CVC decline). */
export function refusesCvc(status: number, code: unknown, param: unknown, declineCode: unknown): boolean {
  if (typeof param === 'string' && CVC_PARAM.test(param)) return true;
  return status === 422 && code === 'card_declined' && typeof declineCode === 'string' && CVC_DECLINES.has(declineCode);
}

/** Whether an error answer is about the card's details (a param naming a card field, or a decline over expiry/CVC/number). */
export function refusesCardDetails(status: number, code: unknown, param: unknown, declineCode: unknown): boolean {
  if (typeof param === 'string' && CARD_PARAM.test(param)) return true;
  if (status === 422 && code === 'card_declined' && typeof declineCode === 'string' && CARD_DETAIL_DECLINES.has(declineCode)) return true;
  return false;
}

const invariant: Invariant = {
  id: 'sandbox-accepts-card-details',
  title: 'Test mode accepts any future expiry, any CVC of the right length and any holder name',
  rules: ['TEST-2'],
  create(ctx) {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['create'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'create' || !rec.sent.cardMeta || rec.sent.badInput) return;
        const known = !!rec.sent.cardOutcome;
        if (ctx.keys.get(rec.key)?.mode !== 'test' || isInconclusive(rec) || [401, 403, 409].includes(rec.status)) return;
        const m = rec.sent.cardMeta;
        const at = new Date(rec.wall);
        const future = m.expYear > at.getUTCFullYear() || (m.expYear === at.getUTCFullYear() && m.expMonth >= at.getUTCMonth() + 1);
        const cvcOk = m.cvcLength === (rec.sent.cardBrand === 'amex' ? 4 : 3);
        if (!future || !cvcOk || m.expMonth < 1 || m.expMonth > 12) return;
        // Only a refusal over the card's details breaks TEST-2; a 4xx naming another field (a probe
        // that sends amount 0 with a good card, say) says nothing about the card.
        if (rec.status >= 400 && !refusesCardDetails(rec.status, rec.error?.code, rec.error?.param, rec.error?.decline_code)) return;
        if (!known && rec.status >= 400 && !refusesCvc(rec.status, rec.error?.code, rec.error?.param, rec.error?.decline_code)) return;
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
