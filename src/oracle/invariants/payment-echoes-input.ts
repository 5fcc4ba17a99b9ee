import type { Invariant } from '../types.ts';
import { currencyEq, is2xx, isCreate, scopeOf } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';

interface Expect {
  amount: number | undefined;
  currency: string | undefined;
  description: string | null | undefined;
  /** undefined: not sent and not shown, so not compared. */
  metadata: Record<string, unknown> | null | undefined;
  seq: number;
}

/** Metadata compared regardless of key order. */
function canon(m: unknown): string | null {
  if (m === null || m === undefined || typeof m !== 'object') return null;
  const o = m as Record<string, unknown>;
  return JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
}
/** Same metadata, regardless of key order; builds strings only when a value is not a plain string. */
function sameMetadata(m: Record<string, unknown> | null, expected: Record<string, unknown> | null): boolean {
  if (m === expected) return true;
  if (!m || !expected) return false;
  let n = 0;
  for (const k in m) {
    n++;
    if (m[k] !== expected[k] && JSON.stringify(m[k]) !== JSON.stringify(expected[k])) return false;
  }
  for (const _ in expected) n--;
  return n === 0;
}

/**
 * PAY-8: the payment carries the amount, currency (ignoring case), description and metadata
 * that were sent, and they never change. Fields not sent are held to their first value.
 * Presentation A has no metadata field, so an absent one there is not a change. metadata is an
 * input of presentation B's Direct API create only: on a hosted create (its body has no
 * metadata) or a body in input shape A, what the service keeps is held to its first value.
 */
const invariant: Invariant = {
  id: 'payment-echoes-input',
  title: 'A payment carries the amount, currency, description and metadata sent; they never change later',
  rules: ['PAY-8'],
  create() {
    const f = new Findings();
    const expected = new Map<string, Expect>();
    return {
      answers: 'payments',
      onRecord(rec) {
        const o = observedPayment(rec);
        if (!o) return;
        const p = o.payment;
        let e = expected.get(p.id);
        if (e === undefined) {
          if (rec.kind !== 'exchange' || !isCreate(rec) || !is2xx(rec.status)) return;
          const s = rec.sent;
          const metadataIsInput = scopeOf(rec) === 'payment_create' && s.inputShape !== 'A';
          const firstMetadata = p.metadata !== null ? p.metadata : undefined;
          e = {
            amount: typeof s.amount === 'number' ? s.amount : p.amount,
            currency: typeof s.currency === 'string' ? s.currency : p.currency,
            description: typeof s.description === 'string' ? s.description : s.description === undefined ? p.description : undefined,
            metadata: (metadataIsInput && s.metadata !== undefined ? s.metadata : firstMetadata) as Record<string, unknown> | null | undefined,
            seq: rec.seq,
          };
          expected.set(p.id, e);
        }
        f.check();
        // Allocated only when something differs (most observations match).
        let diffs: string[] | null = null;
        if (e.amount !== undefined && p.amount !== e.amount) (diffs ??= []).push(`amount ${show(p.amount)} (sent ${e.amount})`);
        if (e.currency !== undefined && !currencyEq(p.currency, e.currency)) (diffs ??= []).push(`currency ${show(p.currency)} (sent ${e.currency})`);
        if (e.description !== undefined && p.description !== e.description) (diffs ??= []).push(`description ${show(p.description)} (expected ${show(e.description)})`);
        if (e.metadata !== undefined && !(p.metadata === null && p.presentation === 'A') && !sameMetadata(p.metadata, e.metadata)) (diffs ??= []).push(`metadata ${show(p.metadata)} (expected ${canon(e.metadata)})`);
        if (diffs) f.violation(evidence(`payment ${p.id} shows ${diffs.join(', ')}`, [o], { seqs: [e.seq] }));
      },
      finish: () => f.outcome('no payment created by the run was seen'),
    };
  },
};
export default invariant;
