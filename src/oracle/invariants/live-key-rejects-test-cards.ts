import type { Invariant } from '../types.ts';
import { isCreate } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** AUTH-7: a live key rejects sandbox test cards, so no payment a live key made with one may ever be seen succeeded. */
const invariant: Invariant = {
  id: 'live-key-rejects-test-cards',
  title: 'A live key never succeeds a payment with a sandbox test card',
  rules: ['AUTH-7'],
  create(ctx) {
    const f = new Findings();
    const isLive = (label: string) => ctx.keys.get(label)?.mode === 'live';
    return {
      kinds: ['exchange'],
      ops: ['create', 'create_hpp', 'raw', 'submit_hpp'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.status === 0 || !rec.sent.cardOutcome || !isLive(rec.key)) return;
        if (isCreate(rec) || rec.op === 'submit_hpp') f.check();
      },
      finish() {
        for (const p of ctx.ledger.payments.values()) {
          if (p.mode !== 'live' || !p.cardOutcome) continue;
          if (ctx.ledger.paymentSpans.seen(p.id, 'succeeded')) {
            const at = ctx.ledger.paymentSpans.firstEnd(p.id, 'succeeded');
            f.violation({ message: `payment ${p.id} made by live key ${p.key} with the "${p.cardOutcome}" test card was seen succeeded`, seqs: [p.seq, at.seq], keys: [p.key], paymentIds: [p.id], times: [p.tStart, at.t] });
          }
        }
        return f.outcome('no live key sent a sandbox test card');
      },
    };
  },
};
export default invariant;
