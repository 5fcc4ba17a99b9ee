import { LIST_STATUS_FILTER } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { is2xx, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { listParams } from '../lib/lists.ts';
import { judgeProbe, probeRule } from '../lib/probes.ts';

/**
 * LIST-6: the status filter returns only that status (presentation A's PROCESSING counts as
 * pending); an unknown status gives 400. Case variants and `processing` are not judged as
 * unknown: a presentation A deployment may accept them.
 */
const invariant: Invariant = {
  id: 'list-status-filter',
  title: 'The status filter returns only that status; an unknown status gives 400',
  rules: ['LIST-6'],
  create() {
    const f = new Findings();
    const allowed = LIST_STATUS_FILTER as readonly string[];
    return {
      kinds: ['exchange'],
      ops: ['list'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'list') return;
        if (probeRule(rec) === 'LIST-6') return judgeProbe(rec, 'LIST-6', f);
        const s = listParams(rec).status;
        if (s === undefined || rec.sent.badInput || isInconclusive(rec) || rec.status === 401 || rec.status === 403) return;
        if (allowed.includes(s)) {
          if (!is2xx(rec.status) || !rec.list) return;
          f.check();
          const i = rec.list.statuses.findIndex((w) => {
            const lower = w.toLowerCase();
            return lower !== s && !(s === 'pending' && lower === 'processing');
          });
          if (i >= 0) f.violation(evidence(`status=${s} returned ${rec.list.ids[i]} in ${rec.list.statuses[i]}`, [rec], { paymentIds: [rec.list.ids[i]] }));
          return;
        }
        if (allowed.includes(s.toLowerCase()) || s.toLowerCase() === 'processing') return;
        f.check();
        if (rec.status !== 400) f.violation(evidence(`unknown status filter ${show(s)} answered ${rec.status} (expected 400)`, [rec]));
      },
      finish: () => f.outcome('no list request used the status filter'),
    };
  },
};
export default invariant;
