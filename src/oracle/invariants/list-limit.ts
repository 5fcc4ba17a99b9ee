import { LIMITS } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { errorCode, is2xx, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { effectiveLimit, listParams } from '../lib/lists.ts';
import { judgeProbe, probeRule } from '../lib/probes.ts';

/** LIST-3: limit defaults to 10 and accepts 1 to 100 (a page holds at most that many); outside that, 400 parameter_invalid. */
const invariant: Invariant = {
  id: 'list-limit',
  title: `limit defaults to ${LIMITS.pageLimitDefault} and accepts ${LIMITS.pageLimitMin} to ${LIMITS.pageLimitMax}; outside that, 400 parameter_invalid`,
  rules: ['LIST-3'],
  create() {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      ops: ['list'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'list') return;
        if (probeRule(rec) === 'LIST-3') return judgeProbe(rec, 'LIST-3', f);
        const p = listParams(rec);
        const limit = effectiveLimit(p);
        if (isInconclusive(rec) || rec.status === 401 || rec.status === 403) return;
        if (limit === null) {
          if (rec.sent.badInput) return;
          f.check();
          if (rec.status !== 400 || errorCode(rec) !== 'parameter_invalid') f.violation(evidence(`limit ${show(rec.sent.list?.limit)} answered ${rec.status} ${show(errorCode(rec))} (expected 400 parameter_invalid)`, [rec]));
          return;
        }
        if (!is2xx(rec.status)) return;
        if (rec.oversizedBodyChars !== undefined) {
          // Too long to parse (over 4 MiB): a hundred payments at the spec's field limits (50
          // metadata values of 500 characters) take under 3 MB, so no page within the limit is this long.
          f.check();
          f.violation(evidence(`a page for limit ${p.limit ?? `default ${limit}`} was ${rec.oversizedBodyChars} characters long, more than any page of at most ${LIMITS.pageLimitMax} payments can be`, [rec]));
          return;
        }
        if (!rec.list) return;
        f.check();
        if (rec.list.ids.length > limit) f.violation(evidence(`page of ${rec.list.ids.length} items for limit ${p.limit ?? `default ${limit}`}`, [rec]));
      },
      finish: () => f.outcome('no list request was answered'),
    };
  },
};
export default invariant;
