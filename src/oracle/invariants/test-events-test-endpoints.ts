import type { Invariant } from '../types.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { withoutQuery } from '../lib/exchange.ts';

/**
 * WH-10: test-mode events carry livemode false and go to test endpoints only: an event about
 * a payment a test key made says livemode false (as does its data.payment), and one endpoint
 * path never receives events of both modes. When the run record says which receiver path is
 * which mode's endpoint (`webhooks.endpoints`), an event of the other mode at that path is a
 * violation on its own (a live event at the test endpoint, or a test event at the live one).
 */
const invariant: Invariant = {
  id: 'test-events-test-endpoints',
  title: 'Test-mode events carry livemode false and go to test endpoints only',
  rules: ['WH-10'],
  create(ctx) {
    const f = new Findings();
    const modesByPath = new Map<string, Map<boolean, Parameters<typeof evidence>[1][number]>>();
    const endpointMode = new Map<string, 'test' | 'live'>((ctx.webhooks?.endpoints ?? []).map((e) => [e.path, e.mode]));
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        const paymentId = rec.payment?.id ?? rec.refund?.paymentId;
        const owner = paymentId ? ctx.ledger.payments.get(paymentId) : undefined;
        if (owner?.mode) {
          f.check();
          const want = owner.mode === 'live';
          if (rec.livemode !== want || (rec.payment && rec.payment.livemode !== want)) {
            f.violation(evidence(`event ${rec.eventId ?? ''} about ${owner.mode} payment ${paymentId} has livemode ${show(rec.livemode)}${rec.payment ? ` (data.payment ${show(rec.payment.livemode)})` : ''}`, [rec]));
          }
        }
        if (typeof rec.livemode !== 'boolean') return;
        const declared = endpointMode.get(withoutQuery(rec.path));
        if (declared) {
          f.check();
          if (rec.livemode !== (declared === 'live')) {
            f.violation(evidence(`${rec.livemode ? 'live' : 'test'}-mode event ${rec.eventId ?? ''} (${rec.type ?? '?'}) was delivered to the ${declared} endpoint ${rec.path}`, [rec]));
          }
        }
        let m = modesByPath.get(rec.path);
        if (!m) modesByPath.set(rec.path, (m = new Map()));
        if (!m.has(rec.livemode)) {
          m.set(rec.livemode, rec);
          if (m.size === 2) f.violation(evidence(`endpoint ${rec.path} received both test and live events`, [m.get(!rec.livemode)!, rec]));
        }
      },
      finish: () => f.outcome('no event about a payment of a key of known mode was delivered'),
    };
  },
};
export default invariant;
