/** Shim of `k6/crypto`: randomBytes and sha256. */
import { createHash, randomBytes as nodeRandomBytes } from 'node:crypto';

export function randomBytes(size) {
  const b = nodeRandomBytes(size);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}
export function sha256(input, outputEncoding) {
  const h = createHash('sha256').update(typeof input === 'string' ? input : Buffer.from(input));
  return outputEncoding === 'hex' ? h.digest('hex') : h.digest('base64');
}
export default { randomBytes, sha256 };
