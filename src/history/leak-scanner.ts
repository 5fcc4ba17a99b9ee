/**
 * What must never come back from the service (SEC-2, PAY-9, ERR-5) and never
 * reach paystorm's own artifacts: the run's API keys and the full card numbers
 * it sent. The scanner knows the run's secrets (privately) and both finds them
 * in response bodies and redacts them from evidence snippets.
 */
import { redactKeys } from '../spec/keys.ts'; // not the index: bundled into the history worker

/** Body fields that hold amounts in minor units (must be integers). */
const AMOUNT_FIELDS = new Set(['amount', 'amount_refunded', 'amount_refundable', 'refunded_amount']);

export const SNIPPET_MAX_CHARS = 500;

export class LeakScanner {
  readonly #keys: { secret: string; label: string }[] = [];
  readonly #cards = new Map<string, string>();

  constructor(keys: readonly { secret: string; label: string }[] = []) {
    for (const k of keys) this.addKey(k.secret, k.label);
  }

  /**
   * Remembers a key, and the forms it travels in besides itself: base64(key + ':') is what an
   * `auth: 'basic'` probe sends (`Basic …`), base64(key) the bare form. A service echoing its
   * Authorization header would otherwise put the whole key into the history unflagged. The forms are
   * kept without `=` padding, so a padded or unpadded echo both match; the longer one comes first, so
   * redaction replaces it whole.
   */
  addKey(secret: string, label: string): void {
    if (!secret || this.#keys.some((k) => k.secret === secret)) return;
    this.#keys.push({ secret, label });
    for (const form of [base64Utf8(secret + ':'), base64Utf8(secret)]) {
      const alias = form.replace(/=+$/, '');
      if (!this.#keys.some((k) => k.secret === alias)) this.#keys.push({ secret: alias, label: `${label} (base64)` });
    }
  }

  /** Remembers a full card number the run sent, so an echo of it is caught and redacted (true when new). */
  addCard(number: string): boolean {
    if (number.length < 12 || this.#cards.has(number)) return false;
    this.#cards.set(number, `card …${number.slice(-4)}`);
    return true;
  }

  /** Echoes of the run's keys and card numbers in a raw body. */
  echoes(text: string): string[] | undefined {
    let found: string[] | undefined;
    for (const k of this.#keys) {
      if (!text.includes(k.secret)) continue;
      // One base64 form can contain the other (a key of 3n characters): one entry per form found.
      const entry = `api key ${k.label} echoed`;
      if (!found?.includes(entry)) (found ??= []).push(entry);
    }
    for (const [num, label] of this.#cards) if (text.includes(num)) (found ??= []).push(`full number of ${label} echoed`);
    return found;
  }

  /** Non-integer amounts and card secrets (cvc, a full number) in a parsed body. */
  structural(parsed: unknown, found?: string[]): string[] | undefined {
    return parsed !== null && typeof parsed === 'object' ? walk(parsed, '', found) : found;
  }

  /** Both kinds of problem in one body. */
  scan(text: string, parsed: unknown): string[] | undefined {
    return this.structural(parsed, this.echoes(text));
  }

  /** Replaces every known secret (keys by label, card numbers by last four). */
  redact(text: string): string {
    let out = redactKeys(text, this.#keys);
    for (const [num, label] of this.#cards) if (out.includes(num)) out = out.split(num).join(label);
    return out;
  }

  /** A redacted evidence snippet of at most SNIPPET_MAX_CHARS (redacted before trimming, so no secret is cut in half). */
  snippet(text: string): string {
    const red = this.redact(text);
    return red.length > SNIPPET_MAX_CHARS ? red.slice(0, SNIPPET_MAX_CHARS - 1) + '…' : red;
  }
}

function walk(v: unknown, path: string, found: string[] | undefined): string[] | undefined {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if (item !== null && typeof item === 'object') found = walk(item, `${path}[${i}]`, found);
    }
    return found;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (AMOUNT_FIELDS.has(k)) {
      if (x !== null && x !== undefined && !Number.isInteger(x)) (found ??= []).push(`non-integer amount at ${path ? path + '.' : ''}${k}`);
    } else if (x !== null && typeof x === 'object') {
      if (k === 'card' && !Array.isArray(x)) {
        const card = x as Record<string, unknown>;
        // A CVC is 3 or 4 digits; a null, empty or masked value ("***") returns no card data.
        if ((typeof card.cvc === 'string' || typeof card.cvc === 'number') && /^\d{3,4}$/.test(String(card.cvc).trim())) (found ??= []).push(`cvc returned at ${path ? path + '.' : ''}card.cvc`);
        if (typeof card.number === 'string' && /^\d{12,19}$/.test(card.number)) (found ??= []).push(`full card number at ${path ? path + '.' : ''}card.number`);
      }
      found = walk(x, path ? `${path}.${k}` : k, found);
    }
  }
  return found;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 of a string's UTF-8 bytes, in plain JS: this file also runs inside k6, which has no Buffer. */
function base64Utf8(text: string): string {
  const bytes: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? B64[n & 63] : '=');
  }
  return out;
}
