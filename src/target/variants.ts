/**
 * Conforming variants of the reference service: one for each choice the spec leaves open
 * ("not shown", two forms). Every variant keeps every rule; `paystorm selftest --variants`
 * runs the default suite on each and requires zero failed invariants, which proves the
 * oracle judges what the service did, not how the reference service happens to do it.
 * docs/variant-matrix.md carries the table and the last run's results.
 */
import { DEFAULT_KEYS, type KeyConfig, type ServiceOptions } from './options.ts';

/** The service options a variant may set (never bugs). */
export type VariantOptions = Partial<Omit<ServiceOptions, 'bugs' | 'port' | 'host'>>;

export interface ServiceVariant {
  name: string;
  /** The open choice of the spec it takes, in the spec's words where possible. */
  choice: string;
  options: VariantOptions;
}

/**
 * The default keys with every test key in one prefix form (the spec gives two: `api_test_sk_` and
 * `svc_test_sk_`; live keys exist only as `svc_live_sk_`). Secrets stay unique by their suffix.
 */
function keysInTestForm(prefix: 'api_test_sk_' | 'svc_test_sk_'): KeyConfig[] {
  const seen = new Set<string>();
  const out: KeyConfig[] = [];
  for (const k of DEFAULT_KEYS) {
    const key = k.key.replace(/^(api|svc)_test_sk_/, prefix);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...k, key });
  }
  return out;
}

const variant = (name: string, choice: string, options: VariantOptions): ServiceVariant => ({ name, choice, options });

export const VARIANTS: readonly ServiceVariant[] = Object.freeze([
  variant('presentation-a', 'Which Payment presentation a deployment returns: not shown (presentation A).', { presentation: 'A' }),
  variant('presentation-b', 'Which Payment presentation a deployment returns: not shown (presentation B).', { presentation: 'B' }),
  variant('test-keys-api-prefix', 'Test key prefix form 1 (`api_test_sk_`) only: the spec gives two forms and a deployment may issue one.', { keys: keysInTestForm('api_test_sk_') }),
  variant('test-keys-svc-prefix', 'Test key prefix form 2 (`svc_test_sk_`) only.', { keys: keysInTestForm('svc_test_sk_') }),
  variant(
    'reused-key-in-use',
    'Same key, different body: 409 idempotency_key_reused (idempotency description) or idempotency_key_in_use (error reference); this variant answers idempotency_key_in_use.',
    { differentBodyCode: 'idempotency_key_in_use' },
  ),
  variant(
    'refund-path-payment-only',
    'Which refund path is authoritative: not shown. This variant serves only POST /v1/payments/{id}/refund; POST /v1/refunds answers 404 resource_missing.',
    { refundPaths: 'payment' },
  ),
  variant(
    'refund-path-refunds-only',
    'Which refund path is authoritative: not shown. This variant serves only POST /v1/refunds; POST /v1/payments/{id}/refund answers 405.',
    { refundPaths: 'refunds' },
  ),
  variant('refund-response-payment', 'Refund response body: not shown. This variant answers the refund call with the Payment (its refunds list the new refund).', { refundResponse: 'payment' }),
  variant('refund-response-minimal', 'Refund response body: not shown. This variant answers `{id, status, payment_id}`, with no amount.', { refundResponse: 'minimal' }),
  variant('refund-event-minimal', 'Refund event payload: the spec shows only `data.refund.payment_id` (other fields not shown). This variant sends `{payment_id, amount, status}`, without the refund\'s own id.', { refundEvent: 'minimal' }),
  variant(
    'challenge-expires-fast',
    'The duration of the 3DS challenge time-out: not shown. This variant expires a challenge 1 ms after it opens, before a poll can see requires_action: only the expired end (reached only from requires_action) and payment.expired show it happened.',
    { challengeExpiryMs: 1 },
  ),
  variant(
    'lenient-types',
    'Where the spec names a type but no rule demands a 400 for another one: this variant accepts a value that converts without loss (exp_month "12", cvc 123, amount "1000", merchant_reference "1234567890") and coerces it.',
    { lenientTypes: true },
  ),
  variant(
    'return-url-at-3ds',
    'Presentation B\'s return_url is "required when 3DS is triggered", and the issuer decides 3DS after the create: this variant accepts a create without return_url and fails the payment (generic_decline) when 3DS triggers.',
    { presentation: 'B', returnUrlAt3ds: true },
  ),
  variant(
    'own-input-shape-only',
    'Which input shape a deployment reads: its presentation\'s (B here). This variant reads only presentation B\'s input table on Direct API creates and ignores the other shape\'s fields.',
    { presentation: 'B', ownInputShapeOnly: true },
  ),
  variant('own-input-shape-only-a', 'As own-input-shape-only, for presentation A (payment_method_data and billing_details only).', { presentation: 'A', ownInputShapeOnly: true }),
  variant(
    'hosted-return-url-optional',
    'The hosted create\'s body is "`amount`, `currency`, optional `merchant_reference`, `billing_details` (required), optional `description`, `return_url`", while presentation A\'s input table marks return_url "yes": this variant accepts a hosted create without return_url (201); after the page the customer sees a done page instead of a redirect.',
    { hostedReturnUrlOptional: true },
  ),
  variant(
    'dual-input-shape-a',
    'The Direct API body is "see the input tables", both of them: this presentation A variant reads both input shapes and refuses a create carrying neither A\'s payment_method_data nor B\'s card naming B\'s `card` (and neither billing_details nor customer naming `customer`).',
    { presentation: 'A', dualShapeNames: 'B' },
  ),
  variant(
    'dual-input-shape-b',
    'As dual-input-shape-a, for presentation B: it names A\'s field, `payment_method_data` for a create carrying neither card (and `billing_details` for one carrying neither customer field).',
    { presentation: 'B', dualShapeNames: 'A' },
  ),
  variant(
    'server-clock-ahead',
    'The deployment\'s clock is not the harness\'s: X-RateLimit-Reset and every timestamp are the server\'s Unix seconds; this host\'s clock runs 3 s ahead (Date, X-RateLimit-Reset, created, webhook t).',
    { clockOffsetMs: 3_000 },
  ),
  variant('server-clock-behind', 'As server-clock-ahead, with the host\'s clock 3 s behind.', { clockOffsetMs: -3_000 }),
  variant(
    'slow-first-retry',
    'Webhook retries: "exponential backoff for up to 24 hours", with no first delay given. This variant first retries a failed delivery after 20 s (400 s of its own time at the default time scale, past the 5 minutes paystorm assumes when none is declared); the embedded run declares it, as a user would with --webhook-retry-within.',
    { webhookRetryBaseMs: 20_000 },
  ),
  variant(
    'sync-create-outcome-a',
    'Presentation A "allows an immediate SUCCEEDED, REQUIRES_ACTION, PROCESSING, PENDING or FAILED": this variant waits for the processor\'s first answer before answering the create (bounded), so a succeeding card answers SUCCEEDED and the 3DS card REQUIRES_ACTION with next_action set; "the sandbox decline cards return 201 with pending", and still do.',
    { presentation: 'A', syncCreateOutcome: true },
  ),
  variant(
    'sync-create-outcome-b',
    'Presentation B "returns pending (or requires_action if 3DS is already known)": as sync-create-outcome-a, the 3DS card answers requires_action with next_action set; every other card answers pending.',
    { presentation: 'B', syncCreateOutcome: true },
  ),
  variant(
    'short-list-pages',
    '"A page may hold fewer than `limit` items even when `has_more` is true.": this variant\'s pages hold at most half of `limit` (at least 1), with has_more true while more payments match; filters and cursors are unchanged.',
    { shortListPages: true },
  ),
  variant(
    'webhook-at-least-once',
    '"Delivery is at-least-once. Receivers deduplicate by event `id`." and "Ordering is not guaranteed.": this variant delivers every event twice with the same id (the copy a short random delay after the first, each with its own retries), and jitters first deliveries so events do not arrive in event order.',
    { webhookDuplicates: true },
  ),
  variant(
    'rate-limit-configured',
    'Request rate: "It is configurable per environment. The `X-RateLimit-Limit` header shows the value in effect.": this variant admits 300 requests per window (the embedded run\'s default is 120 per scaled window), and says so in X-RateLimit-Limit.',
    { rateLimit: 300 },
  ),
  variant(
    'processing-status-a',
    'Presentation A: an outcome not yet known is "PROCESSING or PENDING": this variant answers PROCESSING (never PENDING) for a Direct API payment until its outcome is known; the list filter status=pending finds those payments.',
    { presentation: 'A', unknownOutcomeStatus: 'processing' },
  ),
]);

/**
 * Seeded performance regressions: they keep every rule but are slower, for the baseline and
 * soak-drift gates (docs/baselines.md). Not in VARIANTS: the conformance matrix skips them.
 */
export const PERF_VARIANTS: readonly ServiceVariant[] = Object.freeze([
  variant('slow-create', 'Not an open choice: a performance regression. Every Direct API create waits 40 ms more (a baseline taken without it must fail the regression gate).', { slowCreateMs: 40 }),
  variant('leaky-create', 'Not an open choice: a slow leak. Every Direct API create waits 60 ms more for each minute since the service started (a soak must fail on drift).', { slowCreateGrowthMsPerMin: 60 }),
]);

export const VARIANT_NAMES: readonly string[] = [...VARIANTS, ...PERF_VARIANTS].map((v) => v.name);

export function variantByName(name: string): ServiceVariant | undefined {
  return VARIANTS.find((v) => v.name === name) ?? PERF_VARIANTS.find((v) => v.name === name);
}
