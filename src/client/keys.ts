/** Key handles for a run: what scenarios see of each key (its label and facts), paired with the secret the engine keeps. */
import type { KeyHandle, ParsedKey } from '../spec/index.ts';

/** A key as the engine holds it: the handle scenarios see, and the secret they never do. */
export interface KeySecret {
  handle: KeyHandle;
  secret: string;
}

export function makeKeySecrets(keys: readonly ParsedKey[], directApi?: (k: ParsedKey) => boolean | undefined): KeySecret[] {
  return keys.map((k, index) => {
    const handle: KeyHandle = { index, label: k.label, merchant: k.merchant, mode: k.mode, prefix: k.prefix, last4: k.last4 };
    const d = directApi?.(k);
    return { handle: d === undefined ? handle : { ...handle, directApi: d }, secret: k.secret };
  });
}
