/**
 * Options of the reference service (they mirror `paystorm serve` flags), its
 * built-in keys and secret, and the list of its own delays that --time-scale
 * multiplies. Protocol values of the spec (rate window, 24 h idempotency,
 * 5-minute signature tolerance) live in src/spec/limits.ts and are never scaled.
 */
import { type CardsFile, DEFAULT_TEST_CARDS, type InputShape, LIMITS, type Mode, type Presentation } from '../spec/index.ts';

export interface KeyConfig {
  key: string;
  merchant: string;
  /** False: the key gets 403 not_permitted on POST /v1/payments (Direct API). */
  direct_api: boolean;
}

export interface WebhookEndpoint {
  /** Absent: any merchant. */
  merchant?: string;
  /** Absent: both modes. */
  mode?: Mode;
  url: string;
}

export interface ServiceOptions {
  port: number;
  host: string;
  presentation: Presentation;
  rateLimit: number;
  /** Whole seconds, at least 1000 (X-RateLimit-Reset is in seconds). */
  windowMs: number;
  timeScale: number;
  /** The processor (or a proxy in front of it). Absent: the service starts its own processor. */
  upstreamUrl?: string;
  /** Port of the processor the service starts itself when no upstreamUrl is given (0 = any). */
  upstreamPort: number;
  webhookUrls: WebhookEndpoint[];
  webhookSecret: string;
  webhookTimeoutMs: number;
  keys: KeyConfig[];
  cards: CardsFile;
  bugs: string[];
  /**
   * Creates answer 503 service_unavailable while more than this many payments
   * wait on an unreachable processor (load shedding); below it they answer 201 pending.
   */
  upstreamBacklogLimit: number;
  /** The 409 code for "same key, different body": the spec names both (a conforming variant). */
  differentBodyCode: 'idempotency_key_reused' | 'idempotency_key_in_use';
  /**
   * Which refund paths the service serves (the spec names both and calls neither authoritative):
   * an unserved `POST /v1/refunds` answers 404 resource_missing, an unserved
   * `POST /v1/payments/{id}/refund` 405 (a conforming variant).
   */
  refundPaths: 'both' | 'payment' | 'refunds';
  /** The refund call's answer (its body is "not shown"): a Refund, the Payment, or `{id, status, payment_id}`. */
  refundResponse: 'refund' | 'payment' | 'minimal';
  /**
   * The refund events' `data.refund` (the spec shows only `payment_id`; other fields "not shown"):
   * the Refund, or `{payment_id, amount, status}` without the refund's own id.
   */
  refundEvent: 'refund' | 'minimal';
  /**
   * The 3DS challenge time-out in real ms, replacing the scaled `challengeExpiryMs` (null: the
   * scaled default). The spec does not give the duration: a few ms makes a challenge that expires
   * before the first poll can see requires_action (the challenge-expires-fast variant).
   */
  challengeExpiryMs: number | null;
  /**
   * The first webhook retry's delay in ms (it doubles per attempt), overriding the scaled 1 s;
   * null = scaled. The embedded run sets a floor so the gaps between retries stay well above
   * timer jitter and WH-9's growth can be judged.
   */
  webhookRetryBaseMs: number | null;
  /**
   * Accept a value of another JSON type where the spec only names the type and the value converts
   * without loss (exp_month "12", cvc 123, amount "1000"), coercing it (lenient-types variant).
   */
  lenientTypes: boolean;
  /**
   * Presentation B: a Direct API create without return_url is accepted even for a 3DS card; the
   * requirement is enforced when 3DS triggers, by failing the payment (return-url-at-3ds variant).
   */
  returnUrlAt3ds: boolean;
  /**
   * Direct API creates are read in the presentation's own input shape only: the other shape's
   * fields are ignored, so its body lacks required fields (own-input-shape-only variant).
   */
  ownInputShapeOnly: boolean;
  /**
   * A hosted create without return_url is accepted (201): the hosted endpoint's body line does not
   * mark it required, A's input table does (hosted-return-url-optional variant).
   */
  hostedReturnUrlOptional: boolean;
  /**
   * Both Direct API input shapes are read, and a create carrying neither shape's card (or customer
   * details) is refused naming this shape's field; null: the shape the body's other fields use
   * (dual-input-shape-a/-b variants).
   */
  dualShapeNames: InputShape | null;
  /**
   * The service's wall clock minus the machine's, ms: everything it reports as a time (Date,
   * X-RateLimit-Reset, created and *_at, webhook t and created_at) is shifted by it, as on a
   * host whose clock is off (server-clock-ahead/-behind variants).
   */
  clockOffsetMs: number;
  /**
   * The create answers with an outcome already known: it waits (bounded by twice the scaled
   * challenge-appearing delay plus the create wait) for the processor's first answer, so the 3DS
   * card answers requires_action with next_action set and, in presentation A, a succeeding card
   * SUCCEEDED. Decline cards still answer pending (test-mode rule). sync-create-outcome-a/-b variants.
   */
  syncCreateOutcome: boolean;
  /**
   * List pages hold at most half of `limit` (at least 1), with has_more true while more match
   * ("A page may hold fewer than `limit` items even when `has_more` is true"; short-list-pages variant).
   */
  shortListPages: boolean;
  /**
   * Every webhook event is delivered twice with the same event id, the copy a short random
   * (time-scaled) delay later, and first deliveries are jittered so events do not arrive in event
   * order ("at-least-once", "Ordering is not guaranteed"; webhook-at-least-once variant).
   */
  webhookDuplicates: boolean;
  /**
   * The status of a Direct API payment whose outcome is not yet known: `pending`, or `processing`
   * (presentation A's PROCESSING; B has no processing and shows pending). processing-status-a variant.
   */
  unknownOutcomeStatus: 'pending' | 'processing';
  /**
   * Seeded performance regressions (they keep every rule; they only slow the service down), for the
   * baseline and soak-drift gates: every Direct API create waits `slowCreateMs` plus
   * `slowCreateGrowthMsPerMin` for each minute since the service started (a slow leak) before it is handled.
   */
  slowCreateMs: number;
  slowCreateGrowthMsPerMin: number;
}

export const DEFAULT_WEBHOOK_SECRET = 'whsec_paystormReferenceService0000000000';

/**
 * Two merchants, each with test keys in both prefix forms and a live key, plus
 * one acme test key without Direct API permission. Fixed values so docs and
 * scenarios can name them; they only ever unlock this in-memory sandbox.
 */
export const DEFAULT_KEYS: readonly KeyConfig[] = Object.freeze([
  { key: 'svc_test_sk_acmeTestKey4f8a2c91d7e3b605', merchant: 'acme', direct_api: true },
  { key: 'api_test_sk_acmeTestKey9b1e7d3a05c2f468', merchant: 'acme', direct_api: true },
  { key: 'svc_live_sk_acmeLiveKey2d6f0a8c4e91b357', merchant: 'acme', direct_api: true },
  { key: 'svc_test_sk_acmeNoDirectApi7c3e1b9f05a2d4', merchant: 'acme', direct_api: false },
  { key: 'svc_test_sk_globexTestKey6a0c8e2f4b17d93', merchant: 'globex', direct_api: true },
  { key: 'api_test_sk_globexTestKey1f5b9d3e7a02c86', merchant: 'globex', direct_api: true },
  { key: 'svc_live_sk_globexLiveKey8e2a6c0f4d93b15', merchant: 'globex', direct_api: true },
]);

export const DEFAULT_OPTIONS: ServiceOptions = Object.freeze({
  port: 4010,
  host: '127.0.0.1',
  presentation: 'B' as Presentation,
  rateLimit: LIMITS.rateLimitPerWindow,
  windowMs: LIMITS.rateWindowMs,
  timeScale: 1,
  upstreamUrl: undefined,
  upstreamPort: 0,
  webhookUrls: [],
  webhookSecret: DEFAULT_WEBHOOK_SECRET,
  webhookTimeoutMs: LIMITS.webhookAckTimeoutMs,
  keys: DEFAULT_KEYS as KeyConfig[],
  cards: DEFAULT_TEST_CARDS,
  bugs: [],
  upstreamBacklogLimit: 10_000,
  differentBodyCode: 'idempotency_key_reused',
  refundPaths: 'both',
  refundResponse: 'refund',
  refundEvent: 'refund',
  challengeExpiryMs: null,
  webhookRetryBaseMs: null,
  lenientTypes: false,
  returnUrlAt3ds: false,
  ownInputShapeOnly: false,
  hostedReturnUrlOptional: false,
  dualShapeNames: null,
  clockOffsetMs: 0,
  syncCreateOutcome: false,
  shortListPages: false,
  webhookDuplicates: false,
  unknownOutcomeStatus: 'pending',
  slowCreateMs: 0,
  slowCreateGrowthMsPerMin: 0,
}) as ServiceOptions;

/**
 * The service's own delays at time scale 1, in ms. --time-scale multiplies
 * each (with a 1 ms floor); docs/reference-service.md lists them.
 */
export const BASE_DELAYS = Object.freeze({
  /** Processor answer to an authorization. */
  processorDecisionMs: 300,
  /** Processor answer for a card that needs 3DS: the challenge appears after this. */
  challengeAppearMs: 2_000,
  /** Processor answer to a refund (pending -> succeeded/failed). */
  refundSettleMs: 1_000,
  /** An open 3DS challenge expires after this. */
  challengeExpiryMs: 5 * 60_000,
  /** An unused hosted page expires after this. */
  hostedPageExpiryMs: 15 * 60_000,
  /** How long a create (or hosted-page submission) waits for the processor's first answer before replying pending (floor 50 ms). */
  createWaitMs: 500,
  /** One processor call gives up after this (floor 200 ms, so a busy loopback is not an outage). */
  upstreamTimeoutMs: 10_000,
  /** Upstream retry backoff: starts here and doubles up to upstreamRetryMaxMs. */
  upstreamRetryBaseMs: 1_000,
  upstreamRetryMaxMs: 30_000,
  /** Upstream retries stop after this (a payment is then failed with generic_decline). */
  upstreamRetryWindowMs: LIMITS.webhookRetryWindowMs,
  /** Webhook retry backoff: starts here and doubles up to webhookRetryMaxMs. */
  webhookRetryBaseMs: 1_000,
  webhookRetryMaxMs: 60 * 60_000,
  /** Webhook retries stop after this (the spec's 24 hours). */
  webhookRetryWindowMs: LIMITS.webhookRetryWindowMs,
  /** webhook-at-least-once variant only: a first delivery waits a random 0..this, its copy a random 0..this more. */
  webhookDuplicateMaxMs: 1_000,
});
export type DelayName = keyof typeof BASE_DELAYS;
export type Delays = Record<DelayName, number>;

/** Attempts the processor may refuse explicitly (the upstream-error card) before the payment fails generic_decline. */
export const MAX_PROCESSOR_ERROR_ATTEMPTS = 4;

/** The sandbox processor fails a refund of exactly this many minor units (so refund.failed can be exercised). */
export const SANDBOX_REFUND_FAIL_AMOUNT = 1313;

export function scaledDelays(timeScale: number): Delays {
  const out = {} as Delays;
  for (const [name, ms] of Object.entries(BASE_DELAYS) as [DelayName, number][]) out[name] = Math.max(1, Math.round(ms * timeScale));
  out.upstreamTimeoutMs = Math.max(200, out.upstreamTimeoutMs);
  // A loopback round trip plus a small decision delay should fit, so scaled runs still see synchronous outcomes.
  out.createWaitMs = Math.max(50, out.createWaitMs);
  return out;
}

/** Fills defaults and checks the values a caller can get wrong; throws a message naming the option. */
export function resolveOptions(partial: Partial<ServiceOptions>): ServiceOptions {
  const o: ServiceOptions = { ...DEFAULT_OPTIONS };
  for (const [k, v] of Object.entries(partial)) if (v !== undefined) (o as unknown as Record<string, unknown>)[k] = v;
  if (!Number.isInteger(o.windowMs) || o.windowMs < 1000 || o.windowMs % 1000 !== 0) {
    throw new Error(`windowMs must be whole seconds of at least 1000 ms (X-RateLimit-Reset is in seconds); got ${o.windowMs}`);
  }
  if (!Number.isInteger(o.rateLimit) || o.rateLimit < 1) throw new Error(`rateLimit must be a positive integer; got ${o.rateLimit}`);
  if (!(o.timeScale > 0) || !Number.isFinite(o.timeScale)) throw new Error(`timeScale must be a positive number; got ${o.timeScale}`);
  if (o.presentation !== 'A' && o.presentation !== 'B') throw new Error(`presentation must be A or B; got ${String(o.presentation)}`);
  if (!o.webhookSecret.startsWith('whsec_')) throw new Error('webhookSecret must start with whsec_');
  if (!(o.webhookTimeoutMs > 0)) throw new Error(`webhookTimeoutMs must be positive; got ${o.webhookTimeoutMs}`);
  if (o.unknownOutcomeStatus !== 'pending' && o.unknownOutcomeStatus !== 'processing') throw new Error(`unknownOutcomeStatus must be pending or processing; got ${String(o.unknownOutcomeStatus)}`);
  if (o.dualShapeNames !== null && o.dualShapeNames !== 'A' && o.dualShapeNames !== 'B') throw new Error(`dualShapeNames must be A, B or null; got ${String(o.dualShapeNames)}`);
  if (o.dualShapeNames !== null && o.ownInputShapeOnly) throw new Error('dualShapeNames reads both input shapes; it cannot be combined with ownInputShapeOnly');
  return o;
}
