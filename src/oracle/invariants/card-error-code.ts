import type { Invariant } from '../types.ts';
import { errorCode, errorType, isApiCall } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** ERR-3: a card_error always has code card_declined; decline_code is null on every other error type. */
const invariant: Invariant = {
  id: 'card-error-code',
  title: 'A card_error always has code card_declined; decline_code is null on every other error type',
  rules: ['ERR-3'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      answers: 'errors',
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !rec.error || rec.status < 400 || !isApiCall(rec)) return;
        f.check();
        const type = errorType(rec);
        const dc = rec.error.decline_code;
        if (type === 'card_error' && errorCode(rec) !== 'card_declined') f.violation(evidence(`card_error with code ${show(errorCode(rec))}`, [rec]));
        if (type !== 'card_error' && dc !== null && dc !== undefined) f.violation(evidence(`${show(type)} error carries decline_code ${show(dc)}`, [rec]));
      },
      finish: () => f.outcome('no API request was answered with an error object'),
    };
  },
};
export default invariant;
