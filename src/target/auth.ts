/** API keys of the reference service: lookup, the three 401 causes, and the --keys file. */
import { z } from 'zod';
import { KNOWN_KEY_PREFIXES, type Mode, keyLabel } from '../spec/index.ts';
import type { KeyConfig } from './options.ts';

const KEY_SHAPE = /^([A-Za-z0-9]+)_(test|live)_sk_([A-Za-z0-9]{24,})$/;

export const keysFileSchema = z
  .array(
    z
      .object({
        key: z.string().regex(KEY_SHAPE, '<word>_test_sk_ or <word>_live_sk_ followed by at least 24 letters or digits'),
        merchant: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, ".", "_" or "-"'),
        direct_api: z.boolean().default(true),
      })
      .strict(),
  )
  .min(1, 'at least one key');

export interface ApiKey {
  key: string;
  merchant: string;
  mode: Mode;
  directApi: boolean;
  /** Short label for logs: never the key itself. */
  label: string;
  /** Partition of payments this key sees. */
  partition: string;
}

export type AuthResult = { ok: true; key: ApiKey } | { ok: false; reason: 'malformed' | 'badPrefix' | 'unknown'; presented?: string };

export function partitionOf(merchant: string, mode: Mode): string {
  return `${merchant}\u0000${mode}`;
}

export class KeyRing {
  private readonly byKey = new Map<string, ApiKey>();
  private readonly prefixes: string[];

  constructor(
    keys: readonly KeyConfig[],
    private readonly acceptAnyScheme = false,
  ) {
    const prefixes = new Set(Object.keys(KNOWN_KEY_PREFIXES));
    for (const k of keys) {
      const m = KEY_SHAPE.exec(k.key);
      if (!m) throw new Error(`key for merchant ${k.merchant} (…${k.key.slice(-4)}) is not <word>_test_sk_ or <word>_live_sk_ followed by 24+ letters or digits`);
      const mode = m[2] as Mode;
      prefixes.add(`${m[1]}_${mode}_sk_`);
      this.byKey.set(k.key, { key: k.key, merchant: k.merchant, mode, directApi: k.direct_api, label: keyLabel(k.merchant, mode, k.key), partition: partitionOf(k.merchant, mode) });
    }
    this.prefixes = [...prefixes];
  }

  authenticate(header: string | undefined): AuthResult {
    if (!header) return { ok: false, reason: 'malformed' };
    const sp = header.indexOf(' ');
    if (sp <= 0) return { ok: false, reason: 'malformed' };
    const scheme = header.slice(0, sp);
    if (!this.acceptAnyScheme && scheme.toLowerCase() !== 'bearer') return { ok: false, reason: 'malformed' };
    const token = header.slice(sp + 1).trim();
    if (!token || /\s/.test(token)) return { ok: false, reason: 'malformed' };
    const key = this.byKey.get(token);
    if (key) return { ok: true, key };
    if (!this.prefixes.some((p) => token.startsWith(p))) return { ok: false, reason: 'badPrefix', presented: token };
    return { ok: false, reason: 'unknown', presented: token };
  }

  all(): ApiKey[] {
    return [...this.byKey.values()];
  }
}
