import type { Invariant } from '../types.ts';
import { isAuthenticatedAnswer } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { resetToleranceMs, windowMsOf } from '../lib/rate.ts';

/**
 * RL-6. X-RateLimit-Reset is Unix seconds and, when sent, not in the past (1 s for
 * whole-second rounding, plus clock skew for a remote target) and no further than
 * one window ahead (a milliseconds value would be).
 */
const invariant: Invariant = {
  id: 'rate-reset-value',
  title: 'X-RateLimit-Reset is integer Unix seconds, not in the past and at most one window ahead',
  rules: ['RL-6'],
  create(ctx) {
    const f = new Findings();
    const tol = resetToleranceMs(ctx);
    const W = windowMsOf(ctx);
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isAuthenticatedAnswer(rec) || !rec.rate) return;
        const { reset, raw } = rec.rate;
        if (reset === null) {
          if (raw?.reset !== undefined) {
            f.check();
            f.violation(evidence(`X-RateLimit-Reset ${show(raw.reset)} is not integer Unix seconds`, [rec]));
          }
          return;
        }
        f.check();
        const sentFrom = ctx.epochMs(rec.tStart);
        const sentBy = ctx.epochMs(rec.tEnd);
        if (reset * 1000 < sentFrom - tol) {
          f.violation(evidence(`X-RateLimit-Reset ${reset} was ${Math.round((sentFrom - reset * 1000) / 100) / 10} s in the past when sent`, [rec]));
        } else if (reset * 1000 > sentBy + W + tol) {
          f.violation(evidence(`X-RateLimit-Reset ${reset} is ${Math.round((reset * 1000 - sentBy) / 1000)} s ahead, more than one ${W / 1000} s window (not Unix seconds?)`, [rec]));
        }
      },
      finish: () => f.outcome('no authenticated answer carried X-RateLimit-Reset'),
    };
  },
};
export default invariant;
