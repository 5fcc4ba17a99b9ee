/**
 * Defensive secret scan for every report. The summary should hold only key labels,
 * but evidence bodies come from the target's responses, so anything shaped like a
 * secret key is replaced before it reaches a file or the console.
 */
import { SECRET_KEY_PATTERN } from '../spec/keys.ts';
import type { Summary } from '../spec/summary.ts';

/** One global pattern for every call (String.replace starts a global pattern from the beginning each time). */
const SECRET_KEYS = new RegExp(SECRET_KEY_PATTERN.source, 'g');
/** Every secret key the pattern matches contains this: a text without it is returned as it is, unscanned. */
const SECRET_MARK = '_sk_';

/** Keeps the `<word>_<mode>_sk_` prefix (it says which kind of key leaked) and drops the rest. */
export function redactSecrets(text: string): string {
  if (!text.includes(SECRET_MARK)) return text;
  return text.replace(SECRET_KEYS, (m) => m.slice(0, m.indexOf(SECRET_MARK) + 4) + '[redacted]');
}

/**
 * Any JSON-like value with every string (values and keys) redacted: the parts that held a secret
 * are copied, the rest shared with `value` (a soak's summary holds a timeline point for every
 * second: copying 86,400 of them for each report held the run's event loop for seconds).
 */
export function redactDeep<T>(value: T): T {
  return walk(value) as T;
}

function walk(v: unknown): unknown {
  if (typeof v === 'string') return redactSecrets(v);
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const x = walk(v[i]);
      if (x !== v[i]) (out ??= v.slice())[i] = x;
    }
    return out ?? v;
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    let out: Record<string, unknown> | null = null;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const k2 = redactSecrets(k);
      const x2 = walk(o[k]);
      if (out === null && (k2 !== k || x2 !== o[k])) {
        // The first change: the keys before it are copied as they are, in order.
        out = {};
        for (let j = 0; j < i; j++) out[keys[j]] = o[keys[j]];
      }
      if (out !== null) out[k2] = x2;
    }
    return out ?? v;
  }
  return v;
}

export function redactSummary(summary: Summary): Summary {
  return redactDeep(summary);
}
