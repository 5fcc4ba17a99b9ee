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

/** One object or array being walked: its own keys (arrays: indexes), how far, and where it sits. */
interface Frame {
  v: unknown;
  keys: string[] | null;
  n: number;
  i: number;
  parent: Frame | null;
  /** Its key in the parent (an object), or -1 with `index` (an array). */
  key: string | null;
  index: number;
}

/** The dotted path of a frame (`data.payment`, `items[3]`), built only for a finding: a deep body must not build a path per level. */
function pathOf(f: Frame | null, rootPath: string): string {
  const chain: Frame[] = [];
  for (let x = f; x !== null && x.parent !== null; x = x.parent) chain.push(x);
  let out = rootPath;
  for (let i = chain.length - 1; i >= 0; i--) {
    const x = chain[i];
    out = x.key === null ? `${out}[${x.index}]` : out ? `${out}.${x.key}` : x.key;
  }
  return out;
}

/**
 * Every object and array in `root`, depth first in document order, with an explicit stack: a
 * body nested 200,000 deep (a few hundred KB of `[`) must not overflow the call stack. Plain JS,
 * no Node API: this file also runs inside k6.
 */
function walk(root: unknown, rootPath: string, found: string[] | undefined): string[] | undefined {
  const open = (v: unknown, parent: Frame | null, key: string | null, index: number): Frame => {
    const keys = Array.isArray(v) ? null : Object.keys(v as object);
    return { v, keys, n: keys === null ? (v as unknown[]).length : keys.length, i: 0, parent, key, index };
  };
  const at = (f: Frame, k: string) => {
    const p = pathOf(f, rootPath);
    return p ? `${p}.${k}` : k;
  };
  const stack: Frame[] = [open(root, null, null, -1)];
  while (stack.length) {
    const f = stack[stack.length - 1];
    if (f.i >= f.n) {
      stack.pop();
      continue;
    }
    const i = f.i++;
    if (f.keys === null) {
      const item = (f.v as unknown[])[i];
      if (item !== null && typeof item === 'object') stack.push(open(item, f, null, i));
      continue;
    }
    const k = f.keys[i];
    const x = (f.v as Record<string, unknown>)[k];
    if (AMOUNT_FIELDS.has(k)) {
      if (x !== null && x !== undefined && !Number.isInteger(x)) (found ??= []).push(`non-integer amount at ${at(f, k)}`);
    } else if (x !== null && typeof x === 'object') {
      if (k === 'card' && !Array.isArray(x)) {
        const card = x as Record<string, unknown>;
        // A CVC is 3 or 4 digits; a null, empty or masked value ("***") returns no card data.
        if ((typeof card.cvc === 'string' || typeof card.cvc === 'number') && /^\d{3,4}$/.test(String(card.cvc).trim())) (found ??= []).push(`cvc returned at ${at(f, 'card.cvc')}`);
        if (typeof card.number === 'string' && /^\d{12,19}$/.test(card.number)) (found ??= []).push(`full card number at ${at(f, 'card.number')}`);
      }
      stack.push(open(x, f, k, -1));
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
