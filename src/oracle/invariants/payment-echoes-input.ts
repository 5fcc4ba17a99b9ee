import type { Invariant } from '../types.ts';
import { currencyEq, is2xx, isCreate } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

interface Expect {
  amount: number | undefined;
  currency: string | undefined;
  description: string | null | undefined;
  metadata: string | null | undefined;
  metadataObj: Record<string, unknown> | null;
  seq: number;
}

/** Metadata compared regardless of key order. */
function canon(m: unknown): string | null {
  if (m === null || m === undefined || typeof m !== 'object') return null;
  const o = m as Record<string, unknown>;
  return JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
}
/** Equal to the expected canonical metadata, without building a string when the values match. */
function sameMetadata(m: Record<string, unknown> | null, expected: string | null, expectedObj: Record<string, unknown> | null): boolean {
  if (expectedObj && m) {
    const ks = Object.keys(m);
    if (ks.length === Object.keys(expectedObj).length && ks.every((k) => m[k] === expectedObj[k])) return true;
  }
  return canon(m) === expected;
}

/**
 * PAY-8: the payment carries the amount, currency (ignoring case), description and metadata
 * that were sent, and they never change. Fields not sent are held to their first value.
 * Presentation A has no metadata field, so an absent one there is not a change.
 */
const invariant: Invariant = {
  id: 'payment-echoes-input',
  title: 'A payment carries the amount, currency, description and metadata sent; they never change later',
  rules: ['PAY-8'],
  create() {
    const f = new Findings();
    const expected = new Map<string, Expect>();
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange' && isCreate(rec) && is2xx(rec.status) && rec.payment && !expected.has(rec.payment.id)) {
          const p = rec.payment;
          const s = rec.sent;
          expected.set(p.id, {
            amount: typeof s.amount === 'number' ? s.amount : p.amount,
            currency: typeof s.currency === 'string' ? s.currency : p.currency,
            description: typeof s.description === 'string' ? s.description : s.description === undefined ? p.description : undefined,
            metadata: s.metadata !== undefined ? canon(s.metadata) : p.metadata !== null ? canon(p.metadata) : undefined,
            metadataObj: (s.metadata !== undefined ? s.metadata : p.metadata) as Record<string, unknown> | null,
            seq: rec.seq,
          });
        }
        const o = observedPayment(rec);
        if (!o) return;
        const e = expected.get(o.payment.id);
        if (!e) return;
        f.check();
        const p = o.payment;
        const diffs: string[] = [];
        if (e.amount !== undefined && p.amount !== e.amount) diffs.push(`amount ${show(p.amount)} (sent ${e.amount})`);
        if (e.currency !== undefined && !currencyEq(p.currency, e.currency)) diffs.push(`currency ${show(p.currency)} (sent ${e.currency})`);
        if (e.description !== undefined && p.description !== e.description) diffs.push(`description ${show(p.description)} (expected ${show(e.description)})`);
        if (e.metadata !== undefined && !(p.metadata === null && p.presentation === 'A') && !sameMetadata(p.metadata, e.metadata, e.metadataObj)) diffs.push(`metadata ${show(p.metadata)} (expected ${e.metadata})`);
        if (diffs.length) f.violation(evidence(`payment ${p.id} shows ${diffs.join(', ')}`, [o], { seqs: [e.seq] }));
      },
      finish: () => f.outcome('no payment created by the run was seen'),
    };
  },
};
export default invariant;
