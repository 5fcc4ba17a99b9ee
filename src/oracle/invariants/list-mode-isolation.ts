import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** LIST-9: test and live payments never appear in each other's lists (by livemode, and by who made them). */
const invariant: Invariant = {
  id: 'list-mode-isolation',
  title: "Test and live payments never appear in each other's lists",
  rules: ['LIST-9'],
  create(ctx) {
    const f = new Findings();
    /** Listed ids whose payment was not yet known when listed. */
    const listed = new Map<string, { seq: number; key: string; mode: string }>();
    const judge = (id: string, l: { seq: number; key: string; mode: string }) => {
      const owner = ctx.ledger.payments.get(id);
      if (owner?.mode && owner.mode !== l.mode) f.violation({ message: `${l.mode} list by ${l.key} showed ${owner.mode} payment ${id} made by ${owner.key}`, seqs: [l.seq, owner.seq], paymentIds: [id], keys: [l.key, owner.key] });
    };
    return {
      kinds: ['exchange'],
      ops: ['list'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'list' || !is2xx(rec.status) || !rec.list || rec.list.ids.length === 0) return;
        const mode = ctx.keys.get(rec.key)?.mode;
        if (!mode) return;
        f.check();
        const want = mode === 'live';
        const i = rec.list.livemodes.findIndex((lm) => lm !== null && lm !== want);
        if (i >= 0) f.violation(evidence(`${mode} list showed ${rec.list.ids[i]} with livemode ${rec.list.livemodes[i]}`, [rec], { paymentIds: [rec.list.ids[i]] }));
        for (const id of rec.list.ids) {
          const owner = ctx.ledger.payments.get(id);
          if (owner) judge(id, { seq: rec.seq, key: rec.key, mode });
          else if (listed.size < 50_000 && !listed.has(`${mode}|${id}`)) listed.set(`${mode}|${id}`, { seq: rec.seq, key: rec.key, mode });
        }
      },
      finish() {
        for (const [k, l] of listed) judge(k.slice(k.indexOf('|') + 1), l);
        return f.outcome('no list by a key of known mode returned payments');
      },
    };
  },
};
export default invariant;
