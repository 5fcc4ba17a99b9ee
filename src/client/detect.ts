/**
 * Facts about a target learned before the run record is written: which
 * presentation it speaks and the rate limit in effect.
 */
import { request } from 'undici';
import { WIRE_HEADER_OBJECT } from './wire.ts';
import { API_PATHS, PRESENTATION_PROBE_DESCRIPTION, RATE_HEADERS, detectPresentation, directCreateBody, type PaymentInput, type Presentation } from '../spec/index.ts';

export interface RateLimitProbe {
  limit: number | null;
  remaining: number | null;
  /** X-RateLimit-Reset, Unix seconds. */
  reset: number | null;
  /** The Date header, Unix seconds (the server's clock, like reset); null when absent. */
  date: number | null;
  status: number;
}

function endpoint(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

function intHeader(v: string | string[] | undefined): number | null {
  const s = Array.isArray(v) ? v[0] : v;
  return s !== undefined && /^\s*-?\d+\s*$/.test(s) ? Number(s) : null;
}

async function getJson(url: string, secret: string, timeoutMs: number) {
  const res = await request(url, {
    method: 'GET',
    headers: { authorization: `Bearer ${secret}`, accept: 'application/json', ...WIRE_HEADER_OBJECT },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = await res.body.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, headers: res.headers, body };
}

/** Reads X-RateLimit-* from `GET /v1/payments?limit=1`. */
export async function probeRateLimit(baseUrl: string, secret: string, timeoutMs = 10_000): Promise<RateLimitProbe> {
  const r = await getJson(endpoint(baseUrl, `${API_PATHS.payments}?limit=1`), secret, timeoutMs);
  return {
    limit: intHeader(r.headers[RATE_HEADERS.limit]),
    remaining: intHeader(r.headers[RATE_HEADERS.remaining]),
    reset: intHeader(r.headers[RATE_HEADERS.reset]),
    date: typeof r.headers.date === 'string' && !Number.isNaN(Date.parse(r.headers.date)) ? Math.floor(Date.parse(r.headers.date) / 1000) : null,
    status: r.status,
  };
}

/**
 * The presentation the target speaks: from the first payment of a list page, or,
 * when the list is empty and `probeCard` is given, from a small create (shape B
 * first, then shape A when B's body is refused). Null when neither tells.
 * `onPayment` is told the id of every payment a probe create made: the run records them,
 * since lists may show them and no exchange of the history answered with them (FT-3).
 */
export async function detectTargetPresentation(
  baseUrl: string,
  secret: string,
  opts: { probeCard?: PaymentInput['card']; timeoutMs?: number; onPayment?: (id: string) => void } = {},
): Promise<Presentation | null> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const list = await getJson(endpoint(baseUrl, `${API_PATHS.payments}?limit=1`), secret, timeoutMs);
  const data = (list.body as { data?: unknown[] } | null)?.data;
  if (Array.isArray(data) && data.length > 0) {
    const p = detectPresentation(data[0]);
    if (p) return p;
  }
  if (!opts.probeCard) return null;
  for (const shape of ['B', 'A'] as const) {
    const input: PaymentInput = { amount: 100, currency: 'EUR', card: opts.probeCard, description: PRESENTATION_PROBE_DESCRIPTION, returnUrl: 'https://example.com/return' };
    const res = await request(endpoint(baseUrl, API_PATHS.payments), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'idempotency-key': `ps_probe_${Date.now().toString(36)}_${shape}`,
        ...WIRE_HEADER_OBJECT,
      },
      body: JSON.stringify(directCreateBody(input, shape)),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    try {
      const body: unknown = JSON.parse(text);
      const id = (body as { id?: unknown } | null)?.id;
      if (res.statusCode >= 200 && res.statusCode < 300 && typeof id === 'string' && id) opts.onPayment?.(id);
      const p = detectPresentation(body);
      if (p) return p;
    } catch {
      /* not JSON: try the other shape */
    }
  }
  return null;
}
