/**
 * Secrets a webhook must never carry (SEC-2, PAY-9): the run's API keys, the full card
 * numbers it sent, and anything shaped like a secret key. Found secrets are named by
 * their last four only, so the record never holds them.
 */
import { SECRET_KEY_PATTERN } from '../spec/index.ts';
import { LeakScanner } from '../history/leak-scanner.ts';

export function buildLeakScanner(secrets: readonly string[] = [], cardNumbers: readonly string[] = []): LeakScanner {
  const scanner = new LeakScanner(secrets.map((s) => ({ secret: s, label: `…${s.slice(-4)}` })));
  for (const n of cardNumbers) scanner.addCard(n);
  return scanner;
}

/** Leaks in a raw body; `parsed` (when the body was JSON) adds card-object checks (a `cvc`, a full `number`). */
export function findLeaks(scanner: LeakScanner, raw: string, parsed: unknown): string[] {
  const found = [...(scanner.scan(raw, parsed) ?? [])];
  // A key the run does not hold (another merchant's, a live one) is still a leak.
  for (const m of scanner.redact(raw).matchAll(SECRET_KEY_PATTERN)) {
    const prefix = /^[A-Za-z0-9]+_(?:test|live)_sk_/.exec(m[0])![0];
    found.push(`secret key ${prefix}…${m[0].slice(-4)} in body`);
  }
  return found;
}

/** The body with every leaked secret replaced by its label, so the record built from it holds none. */
export function redactBody(scanner: LeakScanner, raw: string): string {
  return scanner.redact(raw).replace(SECRET_KEY_PATTERN, (k) => `${/^[A-Za-z0-9]+_(?:test|live)_sk_/.exec(k)![0]}…${k.slice(-4)}`);
}

/**
 * A parsed body with every leaked secret replaced by its label: strings and keys redacted as text,
 * and a number that is a card number the run sent (`"pan":4000000000003220`, which text redaction
 * would turn into invalid JSON) replaced by the label string. Iterative: the body may be deep.
 */
export function redactParsed(scanner: LeakScanner, value: unknown): unknown {
  const one = (v: unknown): unknown => {
    if (typeof v === 'string') return redactBody(scanner, v);
    if (typeof v === 'number') {
      const text = String(v);
      const red = scanner.redact(text);
      return red === text ? v : red;
    }
    return v;
  };
  if (value === null || typeof value !== 'object') return one(value);
  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: [unknown, unknown][] = [[value, root]];
  while (stack.length) {
    const [from, to] = stack.pop()!;
    if (Array.isArray(from)) {
      const out = to as unknown[];
      for (let i = 0; i < from.length; i++) out[i] = copy(from[i], stack);
    } else {
      const out = to as Record<string, unknown>;
      for (const k of Object.keys(from as object)) {
        Object.defineProperty(out, redactBody(scanner, k), { value: copy((from as Record<string, unknown>)[k], stack), enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return root;

  function copy(v: unknown, stack: [unknown, unknown][]): unknown {
    if (v === null || typeof v !== 'object') return one(v);
    const c: unknown = Array.isArray(v) ? [] : {};
    stack.push([v, c]);
    return c;
  }
}
