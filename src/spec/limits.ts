/** The spec's "Limits" section as numbers. Protocol values: --time-scale never changes these. */
export const LIMITS = Object.freeze({
  /** Sandbox default; a deployment shows its own in X-RateLimit-Limit. */
  rateLimitPerWindow: 500,
  rateWindowMs: 60_000,
  /** Bursts across a boundary can reach about twice the limit (RL-3). */
  burstFactor: 2,
  idempotencyKeyMaxLength: 255,
  idempotencyKeyLifetimeMs: 24 * 60 * 60 * 1000,
  pageLimitMin: 1,
  pageLimitMax: 100,
  pageLimitDefault: 10,
  amountMin: 1,
  merchantReferenceMin: 1_000_000_000,
  merchantReferenceMax: 9_999_999_999,
  descriptionMaxLength: 500,
  metadataMaxKeys: 50,
  metadataValueMaxLength: 500,
  metadataKeyRecommendedLength: 40,
  webhookAckTimeoutMs: 10_000,
  webhookRetryWindowMs: 24 * 60 * 60 * 1000,
  webhookToleranceSeconds: 300,
  /** Client handling rules: exponential backoff from 1 s to 30 s on api_error and 503. */
  retryBackoffStartMs: 1_000,
  retryBackoffMaxMs: 30_000,
  /** Polling guidance: every 1 to 3 seconds (two guides disagree: 2-3 s and 1-2 s). */
  pollIntervalMinMs: 1_000,
  pollIntervalMaxMs: 3_000,
});

export const RATE_HEADERS = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
  retryAfter: 'retry-after',
} as const;

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** Operation types that scope an Idempotency-Key (IDEM-9). */
export const IDEMPOTENCY_SCOPES = ['payment_create', 'hosted_create', 'refund_create'] as const;
export type IdempotencyScope = (typeof IDEMPOTENCY_SCOPES)[number];

/** ISO 4217 codes paystorm and the reference service accept (a practical subset is not enough: PAY-5). */
export const ISO_4217 = new Set(
  (
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XOF XPF YER ZAR ZMW ZWL'
  ).split(' '),
);
export function isIsoCurrency(c: string): boolean {
  return ISO_4217.has(c.toUpperCase());
}
