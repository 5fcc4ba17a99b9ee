/**
 * API keys (spec "Authentication"): the mode comes from the prefix, `<word>_test_sk_`
 * or `<word>_live_sk_`, where <word> is the service's own prefix word (`svc`, `api`).
 * In every artifact a key appears only as its label: merchant, mode, last four.
 */
export type Mode = 'test' | 'live';

/** Prefixes the spec names. `api_live_sk_` is not given by the spec (form 1 has no live prefix). */
export const KNOWN_KEY_PREFIXES: Readonly<Record<string, Mode>> = {
  api_test_sk_: 'test',
  svc_test_sk_: 'test',
  svc_live_sk_: 'live',
};

const KEY_PATTERN = /^([A-Za-z0-9]+)_(test|live)_sk_(.+)$/;

export interface ParsedKey {
  /** The key itself: never write it to an artifact. */
  secret: string;
  merchant: string;
  mode: Mode;
  /** e.g. `svc_test_sk_` */
  prefix: string;
  last4: string;
  /** `merchant/mode/…last4`: the only form a key takes in artifacts. */
  label: string;
}

export class KeyFormatError extends Error {
  constructor(
    message: string,
    readonly field = '--key',
  ) {
    super(message);
  }
}

export function modeOfKey(key: string): Mode | undefined {
  const m = KEY_PATTERN.exec(key);
  return m ? (m[2] as Mode) : undefined;
}

export function keyLabel(merchant: string, mode: Mode, key: string): string {
  return `${merchant}/${mode}/…${key.slice(-4)}`;
}

/** Parses `--key [merchant:]KEY`. Without a merchant, keys are numbered `m1`, `m2`… by the caller's index. */
export function parseKeyArg(arg: string, defaultMerchant = 'default'): ParsedKey {
  const trimmed = arg.trim();
  const colon = trimmed.indexOf(':');
  const merchant = colon > 0 ? trimmed.slice(0, colon) : defaultMerchant;
  const secret = colon > 0 ? trimmed.slice(colon + 1) : trimmed;
  // KEY:merchant, the wrong way round: the part before ':' is the key, and must not be echoed.
  if (colon > 0 && KEY_PATTERN.test(merchant)) {
    throw new KeyFormatError(`--key: the part before ':' looks like the key itself (ending …${merchant.slice(-4)}); the order is --key merchant:KEY.`);
  }
  if (!/^[A-Za-z0-9_.-]+$/.test(merchant)) {
    throw new KeyFormatError(`--key: merchant name "${merchant}" may use only letters, digits, '.', '_' and '-'. Use --key merchant:KEY.`);
  }
  const m = KEY_PATTERN.exec(secret);
  if (!m) {
    throw new KeyFormatError(
      `--key: a key for merchant "${merchant}" (ending …${secret.slice(-4)}) does not start with <word>_test_sk_ or <word>_live_sk_ (for example svc_test_sk_…). Pass a secret API key.`,
    );
  }
  const mode = m[2] as Mode;
  return { secret, merchant, mode, prefix: `${m[1]}_${mode}_sk_`, last4: secret.slice(-4), label: keyLabel(merchant, mode, secret) };
}

/**
 * Labels the run's keys apart: two keys of one merchant and mode that end alike would share a
 * label, and every record and rule would mix them. The second and later get `#2`, `#3`... (in
 * the order given), still without a character of the secret beyond its last four.
 */
export function uniqueLabels<K extends ParsedKey>(keys: readonly K[]): K[] {
  const count = new Map<string, number>();
  return keys.map((k) => {
    const n = (count.get(k.label) ?? 0) + 1;
    count.set(k.label, n);
    return n === 1 ? k : { ...k, label: `${k.label}#${n}` };
  });
}

/** Replaces every occurrence of the given secrets in a text with their labels (SEC-2 hygiene for our own artifacts). */
export function redactKeys(text: string, keys: readonly Pick<ParsedKey, 'secret' | 'label'>[]): string {
  let out = text;
  for (const k of keys) if (k.secret && out.includes(k.secret)) out = out.split(k.secret).join(k.label);
  return out;
}

/** Any string that looks like a secret key (its body in the characters API keys use, '-', '_', '.' and base64's included). */
export const SECRET_KEY_PATTERN = /\b[A-Za-z0-9]+_(?:test|live)_sk_[A-Za-z0-9_\-.~+/=]{4,}/g;
