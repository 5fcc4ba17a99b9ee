import { LIMITS } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** WH-2: the signature's `t` is within 5 minutes of receipt (plus a second for whole-second t and a second of clock skew). */
const invariant: Invariant = {
  id: 'webhook-timestamp-fresh',
  title: 'The signature timestamp t is within 5 minutes of receipt',
  rules: ['WH-2'],
  create() {
    const f = new Findings();
    const toleranceMs = LIMITS.webhookToleranceSeconds * 1000 + 2000;
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook' || rec.t === null) return;
        f.check();
        const skew = rec.wall - rec.t * 1000;
        if (Math.abs(skew) > toleranceMs) f.violation(evidence(`delivery ${rec.eventId ?? ''} signed with t=${rec.t}, ${Math.round(skew / 1000)} s from its receipt`, [rec]));
      },
      finish: () => f.outcome('no delivery carried a parseable signature timestamp'),
    };
  },
};
export default invariant;
