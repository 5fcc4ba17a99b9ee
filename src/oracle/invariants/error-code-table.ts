import { ERROR_CODES, ERROR_TYPES } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { errorCode, errorType, isApiCall } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { UnservedPathHold } from '../lib/refund-paths.ts';

/** Error types the table allows at each HTTP status. */
const TYPES_BY_STATUS = new Map<number, Set<string>>();
for (const c of Object.values(ERROR_CODES)) {
  if (!TYPES_BY_STATUS.has(c.http)) TYPES_BY_STATUS.set(c.http, new Set());
  TYPES_BY_STATUS.get(c.http)!.add(c.type);
}

/** ERR-2: error.type is one of the six, and code, type and HTTP status agree with the error-code table. */
const invariant: Invariant = {
  id: 'error-code-table',
  title: 'error.type is one of the six types, and code, type and HTTP status agree with the error-code table',
  rules: ['ERR-2'],
  create(ctx) {
    const f = new Findings();
    const hold = new UnservedPathHold();
    return {
      kinds: ['exchange'],
      answers: 'errors',
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.status < 400 || !rec.error || !isApiCall(rec)) return;
        f.check();
        const code = errorCode(rec);
        const type = errorType(rec);
        const problems: string[] = [];
        if (!type || !(ERROR_TYPES as readonly string[]).includes(type)) problems.push(`type ${show(rec.error.type)} is not one of the six`);
        if (code !== null) {
          const info = ERROR_CODES[code];
          if (!info) problems.push(`code ${show(code)} is not in the error-code table`);
          else {
            if (info.http !== rec.status) problems.push(`${code} belongs to HTTP ${info.http}, not ${rec.status}`);
            if (type && info.type !== type) problems.push(`${code} has type ${info.type}, not ${type}`);
          }
        } else if (rec.error.code !== null) {
          problems.push(`code ${show(rec.error.code)} is not a string or null`);
        } else if (type && !TYPES_BY_STATUS.get(rec.status)?.has(type)) {
          problems.push(`type ${type} does not go with HTTP ${rec.status}`);
        }
        if (!TYPES_BY_STATUS.has(rec.status)) problems.push(`HTTP ${rec.status} is not a status the spec lists for errors`);
        if (problems.length === 0) return;
        hold.violation(f, rec, evidence(`${rec.status} ${show(code)}: ${problems.join('; ')}`, [rec]));
      },
      finish() {
        // An unserved refund path may answer 405 (or a 404 of its own making): not an error of the table.
        hold.release(ctx, f);
        return f.outcome('no API request was answered with an error object');
      },
    };
  },
};
export default invariant;
