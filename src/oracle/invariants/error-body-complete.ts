import { ERROR_BODY_FIELDS, REQUEST_ID_PREFIX } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { isApiCall } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** ERR-1: every error response has {error: {type, code, message, param, decline_code, doc_url, request_id}} with request_id starting req_. */
const invariant: Invariant = {
  id: 'error-body-complete',
  title: `Every error response has the full error object (${ERROR_BODY_FIELDS.join(', ')}) with a ${REQUEST_ID_PREFIX} request_id`,
  rules: ['ERR-1'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      answers: 'errors',
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.status < 400 || !isApiCall(rec)) return;
        f.check();
        const e = rec.error;
        if (!e) return f.violation(evidence(`${rec.status} answer has no error object`, [rec]));
        const problems: string[] = [];
        if (e.missing.length) problems.push(`missing ${e.missing.join(', ')}`);
        if (typeof e.request_id !== 'string' || !e.request_id.startsWith(REQUEST_ID_PREFIX)) problems.push(`request_id ${show(e.request_id)}`);
        if (typeof e.message !== 'string') problems.push(`message ${show(e.message)}`);
        if (problems.length) f.violation(evidence(`${rec.status} error object: ${problems.join('; ')}`, [rec]));
      },
      finish: () => f.outcome('no API request was answered with an error'),
    };
  },
};
export default invariant;
