import { leakKind } from '../../history/index.ts';
import type { Invariant } from '../types.ts';
import { Findings, evidence } from '../lib/findings.ts';

/** SEC-2: no response, error message or webhook echoes an API key or a full card number (the client's and receiver's scanners report them). */
const invariant: Invariant = {
  id: 'no-secret-echo',
  title: 'No response, error message or webhook echoes an API key or a full card number',
  rules: ['SEC-2'],
  create() {
    const f = new Findings();
    return {
      onRecord(rec) {
        if (rec.kind !== 'webhook' && (rec.kind !== 'exchange' || rec.status === 0)) return;
        f.check();
        for (const l of rec.leaks ?? []) {
          const k = leakKind(l);
          if (k === 'api_key' || k === 'card_number') f.violation(evidence(`secret echoed: ${l}`, [rec]));
        }
      },
      finish: () => f.outcome('no response or webhook was received'),
    };
  },
};
export default invariant;
