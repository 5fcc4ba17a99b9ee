import type { Invariant } from '../types.ts';
import type { PaymentRows } from '../lib/payment-rows.ts';
import { currencyEq, is2xx, isCreate, scopeOf } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';
import { Float64Column, StringColumn, Uint32Column, Uint8Column, ValueCodes, pageSettings } from '../lib/paged-column.ts';

/**
 * What each payment's later answers are compared with, by its row in the ledger's payment rows: a
 * column per field (paged, old pages on disk: lib/paged-column.ts), not a map entry and an object
 * per payment (about 100 bytes each, for every payment the run makes). The amount and currency are
 * always set (what was sent, else what the create's answer showed); the description may be null,
 * or undefined when neither was, and is then not compared. So may the metadata; a plain object is
 * kept as its canonical text (`canon`), a string column like the description, not the object
 * (about 70 bytes a payment held to the end); anything else in a Map by row (a lenient service's
 * answer to an odd body: rare).
 */
class Expected {
  /** 1: noted; 2: its description is null. */
  private readonly flags = new Uint8Column();
  readonly amount = new Float64Column();
  private readonly currencies = new Uint32Column();
  private readonly currencyCodes = new ValueCodes<string>();
  private readonly descriptions = new StringColumn();
  private readonly metadataTexts = new StringColumn();
  /**
   * The metadata objects of the payments noted last (as many as a column keeps pages of in
   * memory), by row: most looks are at payments made lately, and comparing with the object takes
   * no canonical text of the look's metadata. `recentRows` says which row each place holds.
   */
  private readonly recentMetadata = new Map<number, Record<string, unknown>>();
  private readonly recentRows: number[] = [];
  private readonly recentCap = pageSettings.rows * pageSettings.resident;
  private noted = 0;
  private readonly oddMetadata = new Map<number, unknown>();
  readonly seq = new Float64Column();

  /** The row of a payment noted, or -1. */
  rowOf(rows: PaymentRows, id: string): number {
    const r = rows.find(id);
    return r !== undefined && (this.flags.get(r) & NOTED) !== 0 ? r : -1;
  }

  note(rows: PaymentRows, id: string, amount: number, currency: string, description: string | null | undefined, metadata: Record<string, unknown> | null | undefined, seq: number): number {
    const r = rows.rowOf(id);
    this.amount.set(r, amount);
    this.currencies.set(r, this.currencyCodes.codeOf(currency));
    if (typeof description === 'string') this.descriptions.set(r, description);
    let flags = NOTED | (description === null ? DESCRIPTION_NULL : 0);
    if (metadata === null) flags |= METADATA_NULL;
    else if (plainObject(metadata)) {
      flags |= METADATA_TEXT;
      this.metadataTexts.set(r, canon(metadata)!);
      const at = this.noted++ % this.recentCap;
      if (this.recentRows.length > at) this.recentMetadata.delete(this.recentRows[at]);
      this.recentRows[at] = r;
      this.recentMetadata.set(r, metadata);
    } else if (metadata !== undefined) {
      flags |= METADATA_ODD;
      this.oddMetadata.set(r, metadata);
    }
    this.flags.set(r, flags);
    this.seq.set(r, seq);
    return r;
  }

  currency(r: number): string | undefined {
    return this.currencyCodes.valueOf(this.currencies.get(r));
  }

  description(r: number): string | null | undefined {
    return this.flags.get(r) & DESCRIPTION_NULL ? null : this.descriptions.get(r);
  }

  /** Whether metadata is to be compared (it was sent or shown). */
  hasMetadata(r: number): boolean {
    return (this.flags.get(r) & (METADATA_NULL | METADATA_TEXT | METADATA_ODD)) !== 0;
  }

  /** sameMetadata(m, the expected metadata), by its text where it was kept as one. */
  metadataMatches(r: number, m: Record<string, unknown> | null): boolean {
    const flags = this.flags.get(r);
    if (flags & METADATA_NULL) return m === null;
    if (flags & METADATA_ODD) return sameMetadata(m, this.oddMetadata.get(r) as Record<string, unknown>);
    const recent = this.recentMetadata.get(r);
    if (recent !== undefined) return sameMetadata(m, recent);
    const text = this.metadataTexts.get(r)!;
    // Equal canonical texts are sameMetadata for JSON values; a value that is not an object is compared as it was.
    if (m !== null && typeof m === 'object') return canon(m) === text;
    return sameMetadata(m, Object.fromEntries(JSON.parse(text) as [string, unknown][]));
  }

  /** The expected metadata as the evidence shows it. */
  metadataText(r: number): string | null {
    const flags = this.flags.get(r);
    if (flags & METADATA_TEXT) return this.metadataTexts.get(r)!;
    return flags & METADATA_ODD ? canon(this.oddMetadata.get(r)) : null;
  }
}

/** An object as JSON makes one (its canonical text says all sameMetadata compares). */
function plainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

const NOTED = 1;
const DESCRIPTION_NULL = 2;
const METADATA_NULL = 4;
const METADATA_TEXT = 8;
const METADATA_ODD = 16;

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
  create(ctx) {
    const f = new Findings();
    const expected = new Expected();
    const rows = ctx.ledger.paymentRows;
    return {
      answers: 'payments',
      onRecord(rec) {
        const o = observedPayment(rec);
        if (!o) return;
        const p = o.payment;
        let r = expected.rowOf(rows, p.id);
        if (r < 0) {
          if (rec.kind !== 'exchange' || !isCreate(rec) || !is2xx(rec.status)) return;
          const s = rec.sent;
          const metadataIsInput = scopeOf(rec) === 'payment_create' && s.inputShape !== 'A';
          const firstMetadata = p.metadata !== null ? p.metadata : undefined;
          r = expected.note(
            rows,
            p.id,
            typeof s.amount === 'number' ? s.amount : p.amount,
            typeof s.currency === 'string' ? s.currency : p.currency,
            typeof s.description === 'string' ? s.description : s.description === undefined ? p.description : undefined,
            (metadataIsInput && s.metadata !== undefined ? s.metadata : firstMetadata) as Record<string, unknown> | null | undefined,
            rec.seq,
          );
        }
        const amount = expected.amount.get(r);
        const currency = expected.currency(r);
        const description = expected.description(r);
        f.check();
        // Allocated only when something differs (most observations match).
        let diffs: string[] | null = null;
        if (p.amount !== amount) (diffs ??= []).push(`amount ${show(p.amount)} (sent ${amount})`);
        if (currency !== undefined && !currencyEq(p.currency, currency)) (diffs ??= []).push(`currency ${show(p.currency)} (sent ${currency})`);
        if (description !== undefined && p.description !== description) (diffs ??= []).push(`description ${show(p.description)} (expected ${show(description)})`);
        if (expected.hasMetadata(r) && !(p.metadata === null && p.presentation === 'A') && !expected.metadataMatches(r, p.metadata)) (diffs ??= []).push(`metadata ${show(p.metadata)} (expected ${expected.metadataText(r)})`);
        if (diffs) f.violation(evidence(`payment ${p.id} shows ${diffs.join(', ')}`, [o], { seqs: [expected.seq.get(r)] }));
      },
      finish: () => f.outcome('no payment created by the run was seen'),
    };
  },
};
export default invariant;
