import type { Invariant } from '../types.ts';
import { authVariant, is2xx } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';

/** AUTH-5: the key decides the mode; every payment returned to a test key says livemode false, to a live key true. */
const invariant: Invariant = {
  id: 'livemode-matches-key',
  title: 'Every object returned to a test key has livemode false, to a live key true',
  rules: ['AUTH-5'],
  create(ctx) {
    const f = new Findings();
    return {
      kinds: ['exchange'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !is2xx(rec.status) || authVariant(rec) !== 'ok') return;
        const mode = ctx.keys.get(rec.key)?.mode;
        if (!mode) return;
        const want = mode === 'live';
        if (rec.payment) {
          f.check();
          if (rec.payment.livemode !== want) f.violation(evidence(`payment ${rec.payment.id} returned to a ${mode} key has livemode ${show(rec.payment.livemode)}`, [rec]));
        }
        if (rec.list) {
          rec.list.livemodes.forEach((lm, i) => {
            f.check();
            if (lm !== want) f.violation(evidence(`list item ${rec.list!.ids[i]} returned to a ${mode} key has livemode ${show(lm)}`, [rec], { paymentIds: [rec.list!.ids[i]] }));
          });
        }
      },
      finish: () => f.outcome('no payment was returned to a key of known mode'),
    };
  },
};
export default invariant;
