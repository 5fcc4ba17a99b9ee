/** Shim of `k6/crypto`: randomBytes only. */
import { randomBytes as nodeRandomBytes } from 'node:crypto';

export function randomBytes(size) {
  const b = nodeRandomBytes(size);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}
export default { randomBytes };
