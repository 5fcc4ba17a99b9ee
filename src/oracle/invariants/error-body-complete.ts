import { ERROR_BODY_FIELDS, REQUEST_ID_PREFIX } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { isApiCall } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { UnservedPathHold } from '../lib/refund-paths.ts';

/**
 * ERR-1: every error response has {error: {type, code, message, param, decline_code, doc_url,
 * request_id}} with request_id starting req_. Not judged on a refund path the service does not serve.
 */
const invariant: Invariant = {
  id: 'error-body-complete',
  title: `Every error response has the full error object (${ERROR_BODY_FIELDS.join(', ')}) with a ${REQUEST_ID_PREFIX} request_id`,
  rules: ['ERR-1'],
  create(ctx) {
    const f = new Findings();
    const hold = new UnservedPathHold();
    return {
      kinds: ['exchange'],
      answers: 'errors',
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.status < 400 || !isApiCall(rec)) return;
        f.check();
        const e = rec.error;
        if (!e) return hold.violation(f, rec, evidence(`${rec.status} answer has no error object`, [rec]));
        const problems: string[] = [];
        if (e.missing.length) problems.push(`missing ${e.missing.join(', ')}`);
        if (typeof e.request_id !== 'string' || !e.request_id.startsWith(REQUEST_ID_PREFIX)) problems.push(`request_id ${show(e.request_id)}`);
        if (typeof e.message !== 'string') problems.push(`message ${show(e.message)}`);
        // The error object's table: type a string; code, param, decline_code and doc_url a string or null.
        if (!e.missing.includes('type') && typeof e.type !== 'string') problems.push(`type ${show(e.type)} is not a string`);
        for (const k of ['code', 'param', 'decline_code', 'doc_url'] as const) {
          if (!e.missing.includes(k) && e[k] !== null && typeof e[k] !== 'string') problems.push(`${k} ${show(e[k])} is not a string or null`);
        }
        if (problems.length) hold.violation(f, rec, evidence(`${rec.status} error object: ${problems.join('; ')}`, [rec]));
      },
      finish() {
        hold.release(ctx, f);
        return f.outcome('no API request was answered with an error');
      },
    };
  },
};
export default invariant;
