/** Idempotency keys and random numbers from k6/crypto (no remote jslib import). */
import crypto from 'k6/crypto';

export function randomHex(bytes: number): string {
  const view = new Uint8Array(crypto.randomBytes(bytes));
  let out = '';
  for (let i = 0; i < view.length; i++) out += (view[i] < 16 ? '0' : '') + view[i].toString(16);
  return out;
}

/** A fresh Idempotency-Key: well under the spec's 255 characters, unique across runs and VUs. */
export function newIdempotencyKey(tag: string): string {
  return `k6-${tag}-${randomHex(16)}`;
}

/** An integer in [lo, hi]. */
export function randInt(lo: number, hi: number): number {
  return lo + Math.floor(Math.random() * (hi - lo + 1));
}
