/** Webhook signatures (spec "Signature"): HMAC-SHA256 over `<t>.<raw body>`, hex, `t=<unix>,v1=<hex>`. */
import { createHmac, timingSafeEqual, type Hmac } from 'node:crypto';
import { LIMITS } from './limits.ts';

export function signPayload(secret: string, rawBody: string | Buffer, t: number | string): string {
  const mac = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return `t=${t},v1=${mac}`;
}

export type SignatureVerdict = 'ok' | 'missing' | 'malformed' | 'mismatch' | 'stale';

/**
 * `t` as a number (for the 5-minute tolerance) and as the text received: the HMAC is computed
 * over `<t>.<body>` with `t` exactly as the header carries it (`t=01767…` is signed as `01767…`).
 */
export function parseSignatureHeader(header: string | undefined): { t: number; tText: string; v1: string[] } | null {
  if (!header) return null;
  let tText: string | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d+$/.test(v)) tText = v;
    else if (k === 'v1' && /^[0-9a-f]+$/i.test(v)) v1.push(v.toLowerCase());
  }
  return tText === undefined || v1.length === 0 ? null : { t: Number(tText), tText, v1 };
}

/** The outcome of a verification; `secretIndex` is which of the secrets matched (ok and stale only). */
export interface SignatureCheck {
  verdict: SignatureVerdict;
  t: number | null;
  secretIndex?: number;
}

/**
 * A verification fed the body as it streams in, so a body too large to keep can still be
 * verified: `update` with each chunk, then `finish`. One HMAC per secret (an endpoint each).
 */
export interface StreamingVerification {
  update(chunk: Buffer | string): void;
  finish(nowSeconds?: number, toleranceSeconds?: number): SignatureCheck;
}

export function startVerification(secrets: string | readonly string[], header: string | undefined): StreamingVerification {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  const parsed = header ? parseSignatureHeader(header) : null;
  const macs: Hmac[] = parsed ? list.map((s) => createHmac('sha256', s).update(`${parsed.tText}.`)) : [];
  return {
    update(chunk) {
      for (const m of macs) m.update(chunk);
    },
    finish(nowSeconds = Math.floor(Date.now() / 1000), toleranceSeconds = LIMITS.webhookToleranceSeconds) {
      if (!header) return { verdict: 'missing', t: null };
      if (!parsed) return { verdict: 'malformed', t: null };
      let secretIndex = -1;
      for (let i = 0; i < macs.length; i++) {
        const expected = Buffer.from(macs[i].digest('hex'), 'utf8');
        // Every secret is compared (no early exit), each comparison in constant time.
        const match = parsed.v1.some((sig) => {
          const got = Buffer.from(sig, 'utf8');
          return got.length === expected.length && timingSafeEqual(got, expected);
        });
        if (match && secretIndex < 0) secretIndex = i;
      }
      if (secretIndex < 0) return { verdict: 'mismatch', t: parsed.t };
      if (Math.abs(nowSeconds - parsed.t) > toleranceSeconds) return { verdict: 'stale', t: parsed.t, secretIndex };
      return { verdict: 'ok', t: parsed.t, secretIndex };
    },
  };
}

/** Verifies in constant time and with the 5-minute tolerance (WH-1, WH-2), against one secret or any of several. */
export function verifySignature(
  secret: string | readonly string[],
  rawBody: string | Buffer,
  header: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = LIMITS.webhookToleranceSeconds,
): SignatureCheck {
  const v = startVerification(secret, header);
  v.update(rawBody);
  return v.finish(nowSeconds, toleranceSeconds);
}
