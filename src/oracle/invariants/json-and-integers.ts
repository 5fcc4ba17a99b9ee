import { leakKind } from '../../history/index.ts';
import type { Invariant } from '../types.ts';
import { isApiCall } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { UnservedPathHold } from '../lib/refund-paths.ts';

const AMOUNTS = ['amount', 'amountRefunded', 'amountRefundable'] as const;
/** One media type, application/json, with parameters at most: repeated headers joined by ", " are not one. */
const JSON_CONTENT_TYPE = /^\s*application\/json\s*(;[^,]*)?$/i;

/**
 * ERR-5: answers are JSON with Content-Type application/json, and amounts are integers (also in
 * webhooks). The answers of a refund path the service does not serve are not the API's.
 */
const invariant: Invariant = {
  id: 'json-and-integers',
  title: 'Responses are JSON with Content-Type application/json, and amounts are integers',
  rules: ['ERR-5'],
  create(ctx) {
    const f = new Findings();
    const hold = new UnservedPathHold();
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange') {
          if (rec.status === 0 || !isApiCall(rec)) return;
          f.check();
          if (!rec.json || !JSON_CONTENT_TYPE.test(rec.contentType ?? '')) hold.violation(f, rec, evidence(`${rec.status} answer is ${rec.json ? '' : 'not JSON, '}Content-Type ${show(rec.contentType)}`, [rec]));
        } else if (rec.kind === 'webhook') f.check();
        else return;
        for (const l of rec.leaks ?? []) if (leakKind(l) === 'non_integer_amount') f.violation(evidence(l, [rec]));
        const p = rec.payment;
        if (p) {
          // An array only when some amount is not an integer (a payment per record, nearly all fine).
          let bad: (typeof AMOUNTS)[number][] | null = null;
          for (const k of AMOUNTS) if (p[k] !== null && !Number.isInteger(p[k])) (bad ??= []).push(k);
          if (bad && !(rec.leaks ?? []).some((l) => leakKind(l) === 'non_integer_amount')) f.violation(evidence(`payment ${p.id} has non-integer ${bad.map((k) => `${k} ${show(p[k])}`).join(', ')}`, [rec]));
        }
      },
      finish() {
        hold.release(ctx, f);
        return f.outcome('no API request was answered');
      },
    };
  },
};
export default invariant;
