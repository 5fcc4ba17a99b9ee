import type { Invariant } from '../types.ts';
import { errorCode, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { listParams } from '../lib/lists.ts';
import { judgeProbe, probeRule } from '../lib/probes.ts';

/**
 * LIST-4: a starting_after that does not exist gives 400 parameter_invalid (an id the run
 * never saw anywhere); and a cursor the key itself created is not refused as invalid.
 */
const invariant: Invariant = {
  id: 'list-unknown-cursor',
  title: 'A starting_after that does not exist gives 400 parameter_invalid',
  rules: ['LIST-4'],
  create(ctx) {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['list'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'list') return;
        if (probeRule(rec) === 'LIST-4') return judgeProbe(rec, 'LIST-4', f);
        const cursor = listParams(rec).startingAfter;
        if (!cursor || rec.sent.badInput || isInconclusive(rec) || rec.status === 401 || rec.status === 403) return;
        const known = ctx.ledger.paymentSpans.has(cursor) || ctx.ledger.payments.has(cursor);
        if (!known) {
          f.check();
          if (rec.status !== 400 || errorCode(rec) !== 'parameter_invalid') f.violation(evidence(`starting_after ${cursor}, an id never seen, answered ${rec.status} ${show(errorCode(rec))} (expected 400 parameter_invalid)`, [rec]));
        } else if (ctx.ledger.payments.get(cursor)?.key === rec.key) {
          f.check();
          if (rec.status === 400) f.violation(evidence(`starting_after ${cursor}, a payment this key created, was refused 400 ${show(errorCode(rec))}`, [rec]));
        }
      },
      finish: () => f.outcome('no list request used a starting_after cursor'),
    };
  },
};
export default invariant;
