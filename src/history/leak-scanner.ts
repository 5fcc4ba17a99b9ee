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

  addKey(secret: string, label: string): void {
    if (secret && !this.#keys.some((k) => k.secret === secret)) this.#keys.push({ secret, label });
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
    for (const k of this.#keys) if (text.includes(k.secret)) (found ??= []).push(`api key ${k.label} echoed`);
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
