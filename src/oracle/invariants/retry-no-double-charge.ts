import { PRESENTATION_PROBE_DESCRIPTION } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from '../lib/findings.ts';
import { is2xx, isCreate } from '../lib/exchange.ts';
import { PAYMENT_SCOPES, idemEvidence, idemTuples } from '../lib/idempotency.ts';

/**
 * FT-3. A client retry with the same Idempotency-Key after a time-out or 5xx never
 * creates a second payment. Two ways to see a second one:
 * - two payment ids came back under the key;
 * - the payment the lost first attempt created is invisible to the answers, but lists
 *   show it: per merchant and mode, lists may show at most one payment made during the
 *   run that no create answered for each create that got no usable answer. More unknown
 *   payments than that means some key created two. (Assumes the run's keys are not used
 *   by anyone else during the run.)
 */
const invariant: Invariant = {
  id: 'retry-no-double-charge',
  title: 'A retry with the same Idempotency-Key after a time-out or 5xx never creates a second payment',
  rules: ['FT-3'],
  create(ctx) {
    const f = new Findings();
    // The run's start on the server's clock (created is its Unix seconds), as late as the Date headers allow.
    const runStartSec = () => {
      const c = ctx.ledger.serverClock.estimate();
      return Math.floor((ctx.epochMs(0) + (c ? c.offsetMs + c.uncertaintyMs : 0)) / 1000);
    };
    /** Payments lists showed that were created during the run: id -> merchant|mode and the list's seq. */
    const listed = new Map<string, { scope: string; seq: number }>();
    /** Creates without an Idempotency-Key that got no usable answer, per merchant|mode. */
    const unkeyedUnanswered = new Map<string, number>();
    const scopes = new Map<string, string | undefined>();
    /** `merchant|mode` of a key label (cached: it is asked for every exchange). */
    const scopeOf = (label: string) => {
      let s = scopes.get(label);
      if (s === undefined && !scopes.has(label)) {
        const k = ctx.keys.get(label);
        scopes.set(label, (s = k ? `${k.merchant}|${k.mode}` : undefined));
      }
      return s;
    };
    const unusable = (status: number) => status === 0 || status >= 500 || status === 422;
    const probePayments = new Set(ctx.run?.target.probePayments ?? []);
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange') return;
        if (rec.op !== 'list' && !(rec.idemKey === undefined && (rec.status === 0 || rec.status >= 500 || rec.status === 422))) return;
        const scope = scopeOf(rec.key);
        if (!scope) return;
        if (rec.list && is2xx(rec.status)) {
          rec.list.ids.forEach((id, i) => {
            const created = rec.list!.created[i];
            // Only payments no create has answered with (so far) can reveal a second one. Strictly after the
            // start's second: the presentation probe creates a payment just before the run (not in the history),
            // and `created` is whole seconds (a false FT-3 fail when both fell in one second). The probe may also
            // come after the run's clock started, in a later second: its payment is known by the run record's
            // probePayments (the id the probe got back), or by its description (a probe that got no answer; older histories).
            if (probePayments.has(id) || rec.list!.descriptions?.[i] === PRESENTATION_PROBE_DESCRIPTION) return;
            if (id && created !== null && created !== undefined && created > runStartSec() && !ctx.ledger.payments.has(id) && !listed.has(id)) listed.set(id, { scope, seq: rec.seq });
          });
        }
        if (isCreate(rec) && rec.idemKey === undefined && unusable(rec.status)) unkeyedUnanswered.set(scope, (unkeyedUnanswered.get(scope) ?? 0) + 1);
      },
      finish() {
        const unanswered = new Map(unkeyedUnanswered);
        let retried = 0;
        for (const reqs of idemTuples(ctx, PAYMENT_SCOPES)) {
          const scope = scopeOf(reqs[0].key);
          const ids = new Set(reqs.map((r) => r.objectId).filter(Boolean));
          if (scope && ids.size === 0 && reqs.some((r) => unusable(r.status) || is2xx(r.status))) unanswered.set(scope, (unanswered.get(scope) ?? 0) + 1);
          const isRetry = reqs.some((r, i) => r.attempt > 0 || (i > 0 && reqs.some((a, j) => j < i && a.tEnd <= r.tStart && (a.status === 0 || a.status >= 500))));
          if (!isRetry) continue;
          retried++;
          f.check();
          if (ids.size > 1) f.violation(idemEvidence(`a retried create under one Idempotency-Key returned ${ids.size} payments: ${[...ids].join(', ')}`, reqs));
        }
        // Account for payments only lists revealed.
        const unknown = new Map<string, { ids: string[]; seqs: number[] }>();
        for (const [id, l] of listed) {
          if (ctx.ledger.payments.has(id)) continue;
          let u = unknown.get(l.scope);
          if (!u) unknown.set(l.scope, (u = { ids: [], seqs: [] }));
          u.ids.push(id);
          if (u.seqs.length < 5) u.seqs.push(l.seq);
        }
        if (retried > 0 && listed.size > 0) f.check();
        for (const [scope, u] of retried > 0 ? unknown : new Map()) {
          const allowance = unanswered.get(scope) ?? 0;
          if (u.ids.length > allowance) {
            f.violation({
              message: `lists of ${scope} show ${u.ids.length} payment(s) made during the run that no create answered with, but only ${allowance} create(s) went without a usable answer: a retry created a second payment`,
              seqs: u.seqs,
              paymentIds: u.ids.slice(0, 5),
            });
          }
        }
        return f.outcome('no create was retried with its Idempotency-Key after a time-out or 5xx');
      },
    };
  },
};
export default invariant;
