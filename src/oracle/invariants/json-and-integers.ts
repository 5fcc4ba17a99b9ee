import { leakKind } from '../../history/index.ts';
import type { Invariant } from '../types.ts';
import { isApiCall } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

const AMOUNTS = ['amount', 'amountRefunded', 'amountRefundable'] as const;

/** ERR-5: answers are JSON with Content-Type application/json, and amounts are integers (also in webhooks). */
const invariant: Invariant = {
  id: 'json-and-integers',
  title: 'Responses are JSON with Content-Type application/json, and amounts are integers',
  rules: ['ERR-5'],
  create() {
    const f = new Findings();
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange') {
          if (rec.status === 0 || !isApiCall(rec)) return;
          f.check();
          if (!rec.json || !/^application\/json\b/i.test(rec.contentType ?? '')) f.violation(evidence(`${rec.status} answer is ${rec.json ? '' : 'not JSON, '}Content-Type ${show(rec.contentType)}`, [rec]));
        } else if (rec.kind === 'webhook') f.check();
        else return;
        for (const l of rec.leaks ?? []) if (leakKind(l) === 'non_integer_amount') f.violation(evidence(l, [rec]));
        const p = rec.payment;
        if (p) {
          const bad = AMOUNTS.filter((k) => p[k] !== null && !Number.isInteger(p[k]));
          if (bad.length && !(rec.leaks ?? []).some((l) => leakKind(l) === 'non_integer_amount')) f.violation(evidence(`payment ${p.id} has non-integer ${bad.map((k) => `${k} ${show(p[k])}`).join(', ')}`, [rec]));
        }
      },
      finish: () => f.outcome('no API request was answered'),
    };
  },
};
export default invariant;
