import { HOSTED_CREATE_FIELDS, ISO_4217, LIMITS, PAYMENT_ID_B_PATTERN, PAYMENT_ID_PREFIX, inputRow, returnUrlAllowed, type InputShape } from '../../spec/index.ts';
import type { ExchangeRecord } from '../../history/index.ts';
import type { Invariant } from '../types.ts';
import { authVariant, errorCode, errorType, is2xx } from '../lib/exchange.ts';
import { Findings, evidence, show } from '../lib/findings.ts';
import { faultMaybeOverlapping } from '../lib/faults.ts';

/** Body fields whose sent value the record keeps (`sent`), by the name the wire (and `param`) uses. */
type Field = 'amount' | 'currency' | 'description' | 'metadata' | 'merchant_reference' | 'return_url';
const SENT_OF: Record<Field, keyof ExchangeRecord['sent']> = {
  amount: 'amount',
  currency: 'currency',
  description: 'description',
  metadata: 'metadata',
  merchant_reference: 'merchantReference',
  return_url: 'returnUrl',
};

/**
 * The body field an error's `param` names: its first segment (`metadata[order]`, `metadata.order`,
 * `body.amount` and `/amount` name metadata and amount), when it is one of the recorded fields.
 */
export function paramField(param: unknown): Field | undefined {
  if (typeof param !== 'string') return undefined;
  const p = param.trim().replace(/^(\$\.|\/|body[.[/])/, '');
  const head = /^[^.[\]/]*/.exec(p)![0].replace(/]$/, '');
  return head in SENT_OF ? (head as Field) : undefined;
}

/** The input table rows of the op and shape (the hosted create has one form; a create of unknown shape: both tables). */
function tablesOf(rec: ExchangeRecord): ((field: string) => unknown)[] {
  if (rec.op === 'create_hpp') return [(f) => (HOSTED_CREATE_FIELDS as Readonly<Record<string, unknown>>)[f]];
  const shapes: InputShape[] = rec.sent.inputShape ? [rec.sent.inputShape] : ['A', 'B'];
  return shapes.map((s) => (f: string) => inputRow(s, f));
}

/**
 * Plain text under every reading: well-formed Unicode (no lone surrogate, which is not text, RFC
 * 8259 8.2: in a `u` regex a lone surrogate is a code point of category Cs, a pair is not), with no
 * control character (C0 including tab and newline, DEL, C1) and no noncharacter, any of which a
 * conforming stack (a JSON parser, a database, a text filter) may refuse.
 */
const NOT_PLAIN = /[\p{Cs}\p{Cc}\p{Noncharacter_Code_Point}]/u;
function plainText(s: string): boolean {
  return !NOT_PLAIN.test(s);
}

/** RFC 3986 characters only (printable ASCII, no space, no `\\ " < > ^ ` { | }` nor brackets), every `%` a two-digit escape. */
const URI_CHARS = /^(?:[A-Za-z0-9\-._~:/?#@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;

/**
 * Whether `v` is an absolute https URL (or, when `localhostToo`, an http://localhost URL) under
 * every parser: the text itself, not what WHATWG `new URL()` makes of it (which strips leading and
 * trailing spaces and control characters and takes `https:host/path` and backslashes). It equals
 * its trim, holds only RFC 3986 characters, starts literally `https://` (or `http://localhost`,
 * any case) with a non-empty authority that has no userinfo, and its parsed URL keeps that scheme
 * and a non-empty host.
 */
function plainUrl(v: string, localhostToo: boolean): 'https' | 'localhost' | null {
  if (v !== v.trim() || !URI_CHARS.test(v)) return null;
  const lower = v.toLowerCase();
  const https = lower.startsWith('https://');
  if (!https && !(localhostToo && lower.startsWith('http://localhost'))) return null;
  const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(v)?.[1] ?? '';
  if (authority === '' || authority.includes('@')) return null;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return null;
  }
  if (u.hostname === '') return null;
  if (https) return u.protocol === 'https:' ? 'https' : null;
  return u.protocol === 'http:' && returnUrlAllowed(u) ? 'localhost' : null;
}

/**
 * Why the recorded value of `field` is valid under every reading the spec allows, or null when the
 * record does not prove it. Only fields the op's input table (every candidate shape's) states are
 * judged: A has no metadata, B no merchant_reference, so a service of that shape may refuse them.
 * return_url: https (B also allows http://localhost; A states no rule, so only https is sure), as
 * plain text every URL parser reads alike (plainUrl).
 * description: plain text (plainText); on the Direct API at most 500 UTF-16 units, so at most 500
 * characters however counted, and not empty. The hosted create's table states no maximum and the
 * Limits section gives 500 for "Direct API payment" only: any hosted description may be over the
 * service's own maximum, so none is proven valid.
 * metadata: at most 50 keys, keys within the recommended 40 characters, string values of at most
 * 500, keys and values plain text.
 */
function validBecause(rec: ExchangeRecord, field: Field): string | null {
  const tables = tablesOf(rec);
  if (!tables.every((row) => row(field) !== undefined)) return null;
  const v: unknown = rec.sent[SENT_OF[field]];
  switch (field) {
    case 'amount':
      return Number.isSafeInteger(v) && (v as number) >= LIMITS.amountMin ? `an integer of at least ${LIMITS.amountMin}` : null;
    case 'currency':
      return typeof v === 'string' && ISO_4217.has(v) ? 'an ISO 4217 code' : null;
    case 'description':
      if (rec.op === 'create_hpp') return null;
      return typeof v === 'string' && v.length > 0 && v.length <= LIMITS.descriptionMaxLength && plainText(v)
        ? `plain text of ${v.length} characters (at most ${LIMITS.descriptionMaxLength})`
        : null;
    case 'metadata': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
      const entries = Object.entries(v as Record<string, unknown>);
      const ok =
        entries.length <= LIMITS.metadataMaxKeys &&
        entries.every(([k, x]) => k.length > 0 && k.length <= LIMITS.metadataKeyRecommendedLength && plainText(k) && typeof x === 'string' && x.length <= LIMITS.metadataValueMaxLength && plainText(x));
      return ok
        ? `${entries.length} key(s) (at most ${LIMITS.metadataMaxKeys}) of at most ${LIMITS.metadataKeyRecommendedLength} characters, plain-text string values of at most ${LIMITS.metadataValueMaxLength} characters`
        : null;
    }
    case 'merchant_reference':
      return Number.isSafeInteger(v) && (v as number) >= LIMITS.merchantReferenceMin && (v as number) <= LIMITS.merchantReferenceMax ? 'an integer of exactly 10 digits' : null;
    case 'return_url': {
      if (typeof v !== 'string') return null;
      const localhostToo = tables.every((row) => (row('return_url') as { httpsOrLocalhost?: true } | undefined)?.httpsOrLocalhost === true);
      const kind = plainUrl(v, localhostToo);
      return kind === 'https' ? 'an https URL' : kind === 'localhost' ? 'an http://localhost URL' : null;
    }
  }
}

/**
 * What a key's accepted creates show it takes, per op (the hosted page and the Direct API may take
 * different currencies and amounts): the currencies, and per currency (upper-cased) the largest
 * amount. The spec lists no supported currencies and states no maximum amount, per currency, per
 * path or at all.
 */
interface Accepted {
  currencies: Set<string>;
  maxAmount: Map<string, number>;
}

/** The key and op whose accepted creates a refusal is held against. */
function acceptedKey(rec: ExchangeRecord): string {
  return `${rec.op}\u0000${rec.key}`;
}

interface Refusal {
  rec: ExchangeRecord;
  field: Field;
  why: string;
}

/**
 * PAY-1: a create answers 201 with a Payment: `pay_` id; presentation B: `pay_` + UUID and object "payment".
 *
 * A valid create refused as invalid breaks it too. The record keeps the sent values of amount,
 * currency, description, metadata, merchant_reference and return_url, not the customer / billing
 * fields or the card number, so only a refusal (400 or 422, not a card error) whose `param` names a
 * recorded field is judged, and only when that value is valid by the spec's input tables under every
 * reading. Not judged: bad-input probes (`sent.badInput`), Idempotency-Key probes (`sent.idemVariant`),
 * auth probes, raw requests (they record no body fields), refusals overlapping a fault window, and a
 * currency or an amount the key never had accepted (the spec lists no supported currencies nor a
 * maximum amount: a currency or amount the service never takes is its choice, refusing one it
 * takes elsewhere is not). Other refusals (409, 429, 401/403, card declines) name no such field or
 * are excluded by status.
 */
const invariant: Invariant = {
  id: 'create-returns-payment',
  title: 'A create returns 201 with a Payment whose id starts pay_ (B: pay_ + UUID, object payment); a valid create is not refused',
  rules: ['PAY-1'],
  create(ctx) {
    const f = new Findings();
    const accepted = new Map<string, Accepted>();
    const refusals: Refusal[] = [];
    return {
      kinds: ['exchange'],
      ops: ['create', 'create_hpp'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || (rec.op !== 'create' && rec.op !== 'create_hpp')) return;
        if (rec.status === 400 || rec.status === 422) {
          if (rec.sent.badInput || rec.sent.idemVariant || authVariant(rec) !== 'ok') return;
          if (errorType(rec) === 'card_error' || errorCode(rec) === 'card_declined') return;
          const field = paramField(rec.error?.param);
          const why = field ? validBecause(rec, field) : null;
          if (field && why) refusals.push({ rec, field, why });
          return;
        }
        if (!is2xx(rec.status)) return;
        const k = acceptedKey(rec);
        let a = accepted.get(k);
        if (!a) accepted.set(k, (a = { currencies: new Set(), maxAmount: new Map() }));
        const cur = rec.sent.currency;
        if (typeof cur === 'string') {
          a.currencies.add(cur);
          const amount = rec.sent.amount;
          if (typeof amount === 'number') {
            const currency = cur.toUpperCase();
            if (!(amount <= (a.maxAmount.get(currency) ?? -Infinity))) a.maxAmount.set(currency, amount);
          }
        }
        f.check();
        const p = rec.payment;
        const problems: string[] = [];
        if (rec.status !== 201) problems.push(`status ${rec.status}, not 201`);
        if (!p) problems.push('the body is not a Payment');
        else {
          if (!p.id.startsWith(PAYMENT_ID_PREFIX)) problems.push(`id ${p.id} does not start ${PAYMENT_ID_PREFIX}`);
          else if (p.presentation === 'B' && !PAYMENT_ID_B_PATTERN.test(p.id)) problems.push(`id ${p.id} is not pay_ + UUID`);
          if (p.presentation === 'B' && rec.shapeProblems?.some((s) => s.startsWith('object:'))) problems.push('object is not "payment"');
        }
        if (problems.length) f.violation(evidence(`create answered: ${problems.join('; ')}`, [rec]));
      },
      finish() {
        const faults = ctx.ledger.faults;
        for (const { rec, field, why } of refusals) {
          const slack = rec.clockSlackMs ?? 0;
          if (faultMaybeOverlapping(faults, rec.tStart - slack, rec.tEnd + slack)) continue;
          const a = accepted.get(acceptedKey(rec));
          const v = rec.sent[SENT_OF[field]];
          const cur = rec.sent.currency;
          const path = rec.op === 'create_hpp' ? 'hosted creates' : 'Direct API creates';
          const maxAmount = typeof cur === 'string' ? a?.maxAmount.get(cur.toUpperCase()) : undefined;
          if (field === 'currency' && !a?.currencies.has(v as string)) continue;
          if (field === 'amount' && !(maxAmount !== undefined && maxAmount >= (v as number))) continue;
          f.check();
          const seen = field === 'currency' ? `; the key had ${path} in it accepted` : field === 'amount' ? `; the key had ${path} in ${show(cur)} of up to ${maxAmount} accepted` : '';
          const shown = field === 'description' || field === 'metadata' ? '' : ` ${show(v)}`;
          f.violation(evidence(`a valid ${rec.op === 'create_hpp' ? 'hosted ' : ''}create was refused ${rec.status} ${show(errorCode(rec))} naming ${field}, whose sent value${shown} is ${why}${seen}`, [rec]));
        }
        return f.outcome('no create was answered 2xx, and no create refusal named a field whose sent value is valid');
      },
    };
  },
};
export default invariant;
