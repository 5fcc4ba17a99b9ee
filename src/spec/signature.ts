/** Webhook signatures (spec "Signature"): HMAC-SHA256 over `<t>.<raw body>`, hex, `t=<unix>,v1=<hex>`. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { LIMITS } from './limits.ts';

export function signPayload(secret: string, rawBody: string | Buffer, t: number): string {
  const mac = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return `t=${t},v1=${mac}`;
}

export type SignatureVerdict = 'ok' | 'missing' | 'malformed' | 'mismatch' | 'stale';

export function parseSignatureHeader(header: string | undefined): { t: number; v1: string[] } | null {
  if (!header) return null;
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d+$/.test(v)) t = Number(v);
    else if (k === 'v1' && /^[0-9a-f]+$/i.test(v)) v1.push(v.toLowerCase());
  }
  return t === undefined || v1.length === 0 ? null : { t, v1 };
}

/** Verifies in constant time and with the 5-minute tolerance (WH-1, WH-2). */
export function verifySignature(
  secret: string,
  rawBody: string | Buffer,
  header: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = LIMITS.webhookToleranceSeconds,
): { verdict: SignatureVerdict; t: number | null } {
  if (!header) return { verdict: 'missing', t: null };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { verdict: 'malformed', t: null };
  const expected = Buffer.from(createHmac('sha256', secret).update(`${parsed.t}.`).update(rawBody).digest('hex'), 'utf8');
  const match = parsed.v1.some((sig) => {
    const got = Buffer.from(sig, 'utf8');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
  if (!match) return { verdict: 'mismatch', t: parsed.t };
  if (Math.abs(nowSeconds - parsed.t) > toleranceSeconds) return { verdict: 'stale', t: parsed.t };
  return { verdict: 'ok', t: parsed.t };
}
