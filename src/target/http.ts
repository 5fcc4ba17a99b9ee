/** Small node:http helpers: the hot path avoids URL objects and framework layers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

export const MAX_BODY_BYTES = 1 << 20;

/** Reads the whole body; null when it exceeds the limit. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      if (tooLarge) return;
      size += c.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(tooLarge ? null : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `a=1&b=x%20y` -> Map; repeated names keep the first value. */
export function parseQuery(qs: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!qs) return out;
  for (const part of qs.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const rawK = eq < 0 ? part : part.slice(0, eq);
    const rawV = eq < 0 ? '' : part.slice(eq + 1);
    const k = decodeQueryPart(rawK);
    if (!out.has(k)) out.set(k, decodeQueryPart(rawV));
  }
  return out;
}

/** A query name or value: `+` is a space there, unlike in a path. */
function decodeQueryPart(s: string): string {
  return decodePathSegment(s.includes('+') ? s.replace(/\+/g, ' ') : s);
}

/** Percent-decodes a URL part; text that is not valid percent-encoding is kept as it came. */
export function decodePathSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Request ids: a random per-process stem plus a counter, cheap and unique. */
const stem = randomBytes(6).toString('hex');
let counter = 0;
export function nextRequestId(): string {
  counter = (counter + 1) % 0xffffffff;
  return `req_${stem}${counter.toString(16).padStart(8, '0')}`;
}

export type HeaderList = Record<string, string | number>;

export function send(res: ServerResponse, status: number, body: string, contentType: string, headers?: HeaderList): void {
  const h: HeaderList = headers ? { ...headers } : {};
  h['content-type'] = contentType;
  h['content-length'] = Buffer.byteLength(body);
  res.writeHead(status, h);
  res.end(body);
}

export const JSON_TYPE = 'application/json';
export const HTML_TYPE = 'text/html; charset=utf-8';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
