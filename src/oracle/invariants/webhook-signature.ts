import type { Invariant } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** WH-1: every delivery carries `Service-Signature: t=<unix>,v1=<hex>` and v1 is HMAC-SHA256 over `<t>.<raw body>` (the receiver verified it). */
const invariant: Invariant = {
  id: 'webhook-signature',
  title: 'Every delivery is signed: Service-Signature t=<unix>,v1=HMAC-SHA256(secret, <t>.<raw body>)',
  rules: ['WH-1'],
  create() {
    const f = new Findings();
    return {
      kinds: ['webhook'],
      onRecord(rec) {
        if (rec.kind !== 'webhook') return;
        f.check();
        // `stale` means the signature matched; its age is WH-2's.
        if (rec.signature !== 'ok' && rec.signature !== 'stale') f.violation(evidence(`delivery ${rec.eventId ?? '(no id)'} has a ${rec.signature} signature`, [rec]));
      },
      finish: () => f.outcome('no webhook was delivered to the receiver'),
    };
  },
};
export default invariant;
