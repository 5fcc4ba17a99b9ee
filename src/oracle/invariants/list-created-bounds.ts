import type { Invariant } from '../types.ts';
import { errorCode, is2xx, isInconclusive } from '../lib/exchange.ts';
import { Findings, evidence, evidenceRec, show, type EvidenceSource } from '../lib/findings.ts';
import { listParams, paymentsByKey, type ListParams } from '../lib/lists.ts';
import { judgeProbe, probeRule } from '../lib/probes.ts';

/**
 * LIST-7: created[gte] is inclusive and created[lt] exclusive: every item lies in
 * [gte, lt), and a complete first page (has_more false, no status filter) shows the key's
 * payments created exactly at gte. Non-numeric bounds give 400 parameter_invalid.
 */
const invariant: Invariant = {
  id: 'list-created-bounds',
  title: 'created[gte] is inclusive and created[lt] exclusive',
  rules: ['LIST-7'],
  create(ctx) {
    const f = new Findings();
    const edgePages: { key: string; seq: number; tStart: number; gte: number; params: ListParams; ids: Set<string>; rec: EvidenceSource }[] = [];
    return {
      kinds: ['exchange'],
      ops: ['list'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || rec.op !== 'list') return;
        if (probeRule(rec) === 'LIST-7') return judgeProbe(rec, 'LIST-7', f);
        const p = listParams(rec);
        if ((p.gte === undefined && p.lt === undefined) || rec.sent.badInput || isInconclusive(rec) || rec.status === 401 || rec.status === 403) return;
        if (Number.isNaN(p.gte) || Number.isNaN(p.lt)) {
          f.check();
          if (rec.status !== 400 || errorCode(rec) !== 'parameter_invalid') f.violation(evidence(`non-numeric created bound answered ${rec.status} ${show(errorCode(rec))} (expected 400 parameter_invalid)`, [rec]));
          return;
        }
        if (!is2xx(rec.status) || !rec.list) return;
        f.check();
        const i = rec.list.created.findIndex((c) => c !== null && ((p.gte !== undefined && c < p.gte) || (p.lt !== undefined && c >= p.lt)));
        if (i >= 0) f.violation(evidence(`created[gte]=${p.gte ?? '-'} created[lt]=${p.lt ?? '-'} returned ${rec.list.ids[i]} created ${rec.list.created[i]}`, [rec], { paymentIds: [rec.list.ids[i]] }));
        if (p.gte !== undefined && !p.startingAfter && !p.status && rec.list.hasMore === false) {
          edgePages.push({ key: rec.key, seq: rec.seq, tStart: rec.tStart, gte: p.gte, params: p, ids: new Set(rec.list.ids), rec: evidenceRec(rec) });
        }
      },
      finish() {
        const byKey = paymentsByKey(ctx);
        for (const pg of edgePages) {
          // The key's first payment made before the page, created exactly at gte, and not on it (the list is by answer time).
          let missing: { id: string; seq: number } | undefined;
          for (const x of byKey.get(pg.key) ?? []) {
            if (x.tEnd >= pg.tStart) break;
            if (x.created === pg.gte && (pg.params.lt === undefined || x.created < pg.params.lt) && !pg.ids.has(x.id)) {
              missing = x;
              break;
            }
          }
          if (missing) f.violation(evidence(`created[gte]=${pg.gte} left out ${missing.id}, created exactly at ${pg.gte} (gte is inclusive)`, [pg.rec], { seqs: [missing.seq], paymentIds: [missing.id] }));
        }
        return f.outcome('no list request used created[gte] or created[lt]');
      },
    };
  },
};
export default invariant;
