import { ALLOWED_5XX } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { errorCode, errorType, isApiCall } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** ERR-4: 5xx answers are only 500 internal_error or 503 service_unavailable, type api_error, with a full error body. */
const invariant: Invariant = {
  id: 'server-errors',
  title: '5xx responses are only 500 internal_error or 503 service_unavailable, type api_error, with a full error body',
  rules: ['ERR-4'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      answers: 'errors',
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.status < 500 || !isApiCall(rec)) return;
        f.check();
        const want = ALLOWED_5XX[rec.status];
        if (!want || errorCode(rec) !== want || errorType(rec) !== 'api_error' || !rec.error || rec.error.missing.length) {
          f.violation(evidence(`${rec.status} with code ${show(errorCode(rec))}, type ${show(errorType(rec))}${rec.error?.missing.length ? `, missing ${rec.error.missing.join(', ')}` : rec.error ? '' : ', no error body'}`, [rec]));
        }
      },
      finish: () => f.outcome('the target answered no request with a 5xx'),
    };
  },
};
export default invariant;
