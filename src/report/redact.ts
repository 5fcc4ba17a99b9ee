/**
 * Defensive secret scan for every report. The summary should hold only key labels,
 * but evidence bodies come from the target's responses, so anything shaped like a
 * secret key is replaced before it reaches a file or the console.
 */
import { SECRET_KEY_PATTERN } from '../spec/keys.ts';
import type { Summary } from '../spec/summary.ts';

/** Keeps the `<word>_<mode>_sk_` prefix (it says which kind of key leaked) and drops the rest. */
export function redactSecrets(text: string): string {
  return text.replace(new RegExp(SECRET_KEY_PATTERN.source, 'g'), (m) => m.slice(0, m.indexOf('_sk_') + 4) + '[redacted]');
}

/** A deep copy of any JSON-like value with every string (values and keys) redacted. */
export function redactDeep<T>(value: T): T {
  return walk(value) as T;
}

function walk(v: unknown): unknown {
  if (typeof v === 'string') return redactSecrets(v);
  if (Array.isArray(v)) return v.map(walk);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[redactSecrets(k)] = walk(x);
    return out;
  }
  return v;
}

export function redactSummary(summary: Summary): Summary {
  return redactDeep(summary);
}
