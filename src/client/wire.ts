/**
 * What every request paystorm makes says about itself, and how an answer's body is read off the wire.
 *
 * - `User-Agent: paystorm/<version>` (RFC 9110 §10.1.5: a user agent SHOULD send one; WAF rule sets
 *   such as AWS WAF's NoUserAgent_HEADER answer requests without one 403).
 * - `Accept-Encoding: identity` (RFC 9110 §12.5.3: a request without Accept-Encoding lets the server,
 *   or a CDN/gateway in front of it, use any content-coding).
 * - Answers that come content-coded anyway (gzip, x-gzip, deflate, br) are decoded before the body
 *   becomes text, so what is recorded, parsed and leak-scanned is what the service said. Decoded
 *   output is capped (a decompression bomb is not inflated); a coding that is unknown or does not
 *   decode gives a short note instead of the body, recorded as a non-JSON answer whose snippet says why.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';
import pkg from '../../package.json' with { type: 'json' };
import { BODY_PARSE_MAX_CHARS } from '../history/exchange-record.ts';

/** paystorm's version, from package.json (read once, when this module loads). */
export const PAYSTORM_VERSION: string = typeof pkg.version === 'string' && pkg.version !== '' ? pkg.version : '0.0.0';

export const USER_AGENT = `paystorm/${PAYSTORM_VERSION}`;

/** The headers every request carries, flat [name, value, ...] (undici's form). */
export const WIRE_HEADERS: readonly string[] = Object.freeze(['user-agent', USER_AGENT, 'accept-encoding', 'identity']);

/** The same as an object (autocannon's form). */
export const WIRE_HEADER_OBJECT: Readonly<Record<string, string>> = Object.freeze({ 'user-agent': USER_AGENT, 'accept-encoding': 'identity' });

/**
 * The most a coded body is decoded to. Past BODY_PARSE_MAX_CHARS a body is recorded as oversized
 * (not parsed; `json` and echoed secrets still checked), as an identity body is; this cap only stops
 * a small coded body from being inflated into gigabytes.
 */
export const DECODED_BODY_MAX_BYTES = 8 * BODY_PARSE_MAX_CHARS;

const CONTENT_ENCODING = Buffer.from('content-encoding', 'latin1');

/** Case-insensitive compare of a raw header name with a lower-case ASCII name of the same length, without making a string. */
export function sameName(raw: Buffer, lower: Buffer): boolean {
  for (let i = 0; i < lower.length; i++) {
    let c = raw[i];
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== lower[i]) return false;
  }
  return true;
}

/** The Content-Encoding of undici's raw header list (repeated fields joined by ', '), or null: no strings made when absent. */
export function contentEncodingOf(raw: Buffer[]): string | null {
  let out: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length === CONTENT_ENCODING.length && sameName(name, CONTENT_ENCODING)) {
      const v = raw[i + 1].toString('latin1');
      out = out === null ? v : `${out}, ${v}`;
    }
  }
  return out;
}

/** deflate is meant as zlib-wrapped (RFC 9110 §8.4.1.2), but some servers send raw deflate: take either. */
function inflateEither(buf: Buffer, opts: ZlibOptions): Buffer {
  try {
    return inflateSync(buf, opts);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw err;
    return inflateRawSync(buf, opts);
  }
}

/**
 * The body as text, undoing `contentEncoding` (codings listed in the order applied, so undone last
 * first). `identity` and an empty or absent header leave the bytes as they are. Never throws: a
 * coding it cannot undo gives a note saying why, in place of the body.
 */
export function decodeBody(body: Buffer, contentEncoding: string | null, maxBytes = DECODED_BODY_MAX_BYTES): string {
  if (contentEncoding === null || body.length === 0) return body.toString('utf8');
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return body.toString('utf8');
  const opts: ZlibOptions = { maxOutputLength: maxBytes };
  let buf = body;
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i];
    try {
      switch (coding) {
        case 'gzip':
        case 'x-gzip':
          buf = gunzipSync(buf, opts);
          break;
        case 'deflate':
          buf = inflateEither(buf, opts);
          break;
        case 'br':
          buf = brotliDecompressSync(buf, { maxOutputLength: maxBytes });
          break;
        default:
          return note(contentEncoding, `the coding "${coding}" is not supported (paystorm asked for identity)`, body.length);
      }
    } catch (err) {
      const e = err as { code?: string; message?: string };
      if (e.code === 'ERR_BUFFER_TOO_LARGE') return note(contentEncoding, `"${coding}" decodes to more than ${maxBytes} bytes (decompression cap); not read`, body.length);
      return note(contentEncoding, `"${coding}" could not be decoded (${e.message ?? String(err)})`, body.length);
    }
  }
  return buf.toString('utf8');
}

function note(contentEncoding: string, why: string, bytes: number): string {
  return `[paystorm: body not decoded: Content-Encoding "${contentEncoding}": ${why}; ${bytes} bytes as received]`;
}
