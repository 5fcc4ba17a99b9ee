import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** LIST-2: data is newest first by creation (equal seconds may come in any order). */
const invariant: Invariant = {
  id: 'list-newest-first',
  title: 'List data is newest first by creation',
  rules: ['LIST-2'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['list'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'list' || !is2xx(rec.status) || !rec.list) return;
        const created = rec.list.created;
        if (created.filter((c) => c !== null).length < 2) return;
        f.check();
        let prev: number | null = null;
        for (let i = 0; i < created.length; i++) {
          const c = created[i];
          if (c === null) continue;
          if (prev !== null && c > prev) {
            f.violation(evidence(`list item ${rec.list.ids[i]} (created ${c}) comes after one created ${prev}`, [rec], { paymentIds: [rec.list.ids[i]] }));
            break;
          }
          prev = c;
        }
      },
      finish: () => f.outcome('no list page held two payments'),
    };
  },
};
export default invariant;
