/**
 * Seeded bugs: each name injects one realistic violation of one rule of
 * rules.md, observable from outside through HTTP or webhooks in a short run.
 * Without --bugs the service keeps every rule. docs/reference-service.md
 * carries this table; test/target/bugs*.test.ts proves each one.
 */
export interface BugInfo {
  name: string;
  /** The rule id of rules.md it breaks. */
  rule: string;
  description: string;
}

const bug = (name: string, rule: string, description: string): BugInfo => ({ name, rule, description });

export const BUGS = [
  // RL: rate limit
  bug('rl-off-by-one', 'RL-1', 'The limiter compares with > instead of >=, so each window admits limit+1 requests.'),
  bug('rl-sliding-window', 'RL-2', 'A sliding log of the last window length replaces the fixed window, so a window does not reset at the first request after it ends.'),
  bug('rl-headers-missing-on-4xx', 'RL-4', 'Rate headers are written only on 2xx and 429 responses, not on other 4xx.'),
  bug('rl-remaining-negative', 'RL-5', 'Refused requests are counted too, and X-RateLimit-Remaining goes negative once over the limit.'),
  bug('rl-reset-moves', 'RL-6', 'X-RateLimit-Reset is computed as now + window on every response instead of the window end.'),
  bug('rl-no-retry-after', 'RL-7', '429 responses carry no Retry-After header.'),
  bug('rl-retry-after-zero', 'RL-8', 'Retry-After is 0 (truncated milliseconds), so a client that honours it is refused again.'),
  bug('rl-shared-merchant-counter', 'RL-9', 'Counters are keyed by merchant instead of API key: exhausting one key gives 429 to the merchant\'s other keys.'),
  bug('rl-early-429', 'RL-1', 'Off by one low: each window admits limit - 1 requests and refuses the limit-th with 429 (the headers still say the limit).'),
  bug('rl-window-restarts-early', 'RL-2', 'The window restarts at the first request after a third of its length, though X-RateLimit-Reset announces the full window.'),
  bug('rl-limit-below-header', 'RL-1', 'The limiter enforces 90% of the limit that X-RateLimit-Limit announces.'),
  bug('rl-per-worker-counter', 'RL-3', 'The limiter keeps its counters in process memory behind a four-worker cluster: each connection is served by one worker in turn, and each worker counts (and windows) a key on its own, so parallel connections get up to four times the limit in one window length.'),
  // IDEM: idempotency
  bug('idem-missing-key-accepted', 'IDEM-1', 'A POST without Idempotency-Key is processed instead of refused with 400 parameter_missing.'),
  bug('idem-no-length-limit', 'IDEM-2', 'Idempotency keys longer than 255 characters are accepted.'),
  bug('idem-body-ignored', 'IDEM-4', 'The stored request fingerprint is not compared: a different body under a used key replays the first response.'),
  bug('idem-no-inflight-lock', 'IDEM-6', 'No in-flight lock: concurrent requests with one key each create a payment (the last response wins the cache).'),
  bug('idem-ghost-duplicate', 'IDEM-6', 'Under a same-key race every request creates a payment, but each caller is answered with the first one, so the answers look idempotent while lists show the duplicates (a ghost double charge).'),
  bug('idem-caches-errors', 'IDEM-7', 'Error responses are cached too, so a retry after a 4xx replays the error instead of executing again.'),
  bug('idem-global-scope', 'IDEM-8', 'The store is keyed by the Idempotency-Key value alone: another API key with the same value gets the first key\'s response.'),
  bug('idem-shared-operation-scope', 'IDEM-9', 'One scope for every POST: the same value on a create and a hosted create collides (409).'),
  bug('idem-dedupes-merchant-reference', 'IDEM-10', 'A create whose merchant_reference was already used returns the earlier payment instead of a new one.'),
  bug('idem-refuses-reused-merchant-reference', 'IDEM-10', 'A create whose merchant_reference was already used is refused 422 action_not_allowed, as if the reference were a unique order id.'),
  bug('idem-replay-reexecutes', 'IDEM-3', 'The create handler runs before the idempotency cache is consulted: a same-body retry of a payment create after its answer creates another payment, and is answered with the stored original (a ghost payment only lists show).'),
  bug('idem-in-flight-reused-code', 'IDEM-5', 'One 409 for every idempotency conflict: a same-body request arriving while the first is in flight gets idempotency_key_reused instead of idempotency_key_in_use.'),
  // PAY: creation and the Payment object
  bug('pay-zero-amount-accepted', 'PAY-2', 'The amount check is amount < 0, so amount 0 creates a payment.'),
  bug('pay-param-not-named', 'PAY-3', 'A missing required body field gives 400 parameter_invalid with param null.'),
  bug('pay-description-unbounded', 'PAY-5', 'description longer than 500 characters is accepted on Direct API creates.'),
  bug('pay-description-off-by-one', 'PAY-5', 'description of exactly 500 characters is refused (>= where > belongs).'),
  bug('pay-metadata-key-40-enforced', 'PAY-5', 'metadata keys over 40 characters are refused, although the spec only recommends the limit.'),
  bug('pay-amount-mutates', 'PAY-8', 'After a refund succeeds, amount is reported net of the refunded total.'),
  bug('pay-leaks-card-number', 'PAY-9', 'The card object carries the full card number in a `number` field.'),
  bug('pay-next-action-stale', 'PAY-11', 'next_action keeps the 3DS redirect after the payment has succeeded.'),
  bug('pay-decline-code-generic', 'PAY-16', 'Every processor decline is stored as generic_decline, losing do_not_honor and insufficient_funds.'),
  bug('pay-valid-create-refused', 'PAY-1', 'The currency table is a cache reloaded on every fifth valid create and read while it is empty: that create (Direct API or hosted) is refused 400 parameter_invalid, param currency, although its currency is valid.'),
  bug('pay-id-not-uuid', 'PAY-1', 'Presentation B ids are pay_ + 32 hex digits (the UUID with its hyphens stripped, as presentation A does) instead of pay_ + UUID.'),
  bug('pay-bad-json-parameter-invalid', 'PAY-4', 'A body that is not JSON goes through the validation error path: 400 parameter_invalid instead of invalid_request_body.'),
  bug('pay-create-answers-outcome', 'PAY-6', 'Presentation B waits for the processor like A: a create the processor approves within the create wait is answered succeeded, which B does not allow for a new payment.'),
  bug('pay-decline-402', 'PAY-7', 'A processor decline that arrives within the create wait is answered 402 card_error card_declined (with its decline_code), the way some PSPs answer declines, and the payment is discarded.'),
  bug('pay-refundable-before-success', 'PAY-10', 'Presentation A computes amount_refundable as amount minus refunds whatever the status, so a payment not (yet) succeeded shows its whole amount as refundable.'),
  bug('pay-hosted-empty-card', 'PAY-12', 'Presentation B renders a hosted payment without a card as an empty card object (every field null) instead of card null until the page is completed.'),
  bug('pay-redirect-url-on-3ds', 'PAY-13', 'Presentation B fills redirect_url from next_action, so a Direct API payment waiting on 3DS carries the challenge URL there.'),
  bug('pay-failed-at-on-expiry', 'PAY-14', 'An expired payment (abandoned 3DS challenge or hosted page) is stamped failed_at, as if it had failed.'),
  bug('pay-card-cleared-on-success', 'PAY-15', 'On success the masked card is cleared together with the raw card data, so a succeeded payment has card null.'),
  bug('pay-unknown-id-400', 'PAY-17', 'Retrieving an id no payment has answers 400 parameter_invalid (param id); only another merchant\'s or mode\'s payment answers 404.'),
  // SM: states
  bug('sm-succeeded-to-failed', 'SM-2', 'A failed refund marks its succeeded payment failed.'),
  bug('sm-challenge-never-expires', 'SM-4', 'No expiry timer is armed for 3DS challenges: an abandoned challenge stays requires_action.'),
  bug('sm-processor-unreachable', 'SM-6', 'The service calls its processor at an address nothing listens on (a misconfigured deployment): creates answer 201 pending and the payments never settle.'),
  bug('sm-hpp-3ds-skips-challenge', 'SM-5', 'A hosted page submitted with the 3DS card skips the challenge and succeeds.'),
  bug('sm-authorized-status', 'SM-1', 'An approved payment is first reported with status `authorized` until its capture completes (the refund settlement delay later), a status the transition table does not have.'),
  bug('sm-3ds-frictionless', 'SM-3', 'Direct API authorizations tell the processor 3DS already passed (a frictionless flag left on), so the 3DS test card succeeds without a challenge.'),
  // REF: refunds
  bug('ref-not-listed', 'REF-1', 'Failed refunds are removed from the payment\'s refunds array.'),
  bug('ref-counts-pending', 'REF-2', 'refunded_amount sums every refund, pending and failed included.'),
  bug('ref-no-lock', 'REF-3', 'The refundable check and the commit are separated by the processor call, with no per-payment lock: concurrent refunds exceed the amount.'),
  bug('ref-wrong-code', 'REF-4', 'A refund above the refundable amount gives 400 parameter_invalid instead of 422 action_not_allowed.'),
  bug('ref-allows-unsucceeded', 'REF-5', 'Refunds of payments that are not succeeded are accepted.'),
  bug('ref-refunded-at-partial', 'REF-6', 'refunded_at is set when the first refund succeeds, even a partial one.'),
  bug('ref-scope-per-path', 'REF-7', 'The two refund paths keep separate idempotency scopes: one key on both creates two refunds.'),
  bug('ref-stuck-pending', 'REF-1', 'Refunds are accepted and listed but never submitted to the processor: they stay pending for ever.'),
  bug('ref-accepts-bad-amount', 'REF-4', 'A refund amount that is not an integer of at least 1 (0, a string, a fraction) is read as absent (`amount || remaining`): it refunds what is left.'),
  // LIST: listing
  bug('list-oldest-first', 'LIST-2', 'data is ordered oldest first.'),
  bug('list-limit-unchecked', 'LIST-3', 'limit outside 1..100 is clamped instead of refused with 400.'),
  bug('list-unknown-cursor-ok', 'LIST-4', 'A starting_after that does not exist is ignored and the first page returned.'),
  bug('list-cursor-skip', 'LIST-5', 'The page after a cursor starts one item too far, skipping a payment.'),
  bug('list-gte-exclusive', 'LIST-7', 'created[gte] is applied as a strict lower bound.'),
  bug('list-filter-after-page', 'LIST-8', 'The status filter is applied after slicing the page, and has_more is false when the filtered page is short.'),
  bug('list-leaks-live', 'LIST-9', 'The list holds both modes of the merchant.'),
  bug('list-url-doubled-prefix', 'LIST-1', 'The list envelope joins the API base path to the full route: url is /v1/v1/payments.'),
  bug('list-unknown-status-ignored', 'LIST-6', 'An unknown status filter value is ignored and the unfiltered list returned instead of 400.'),
  // WH: webhooks
  bug('wh-bad-signature', 'WH-1', 'The signature is HMAC over the body alone, without the `<t>.` prefix.'),
  bug('wh-timestamp-ms', 'WH-2', 't is sent in milliseconds instead of seconds.'),
  bug('wh-missing-failed-event', 'WH-4', 'No payment.failed event is sent.'),
  bug('wh-refund-event-missing-payment-id', 'WH-5', 'data.refund of refund events lacks payment_id.'),
  bug('wh-event-on-pending', 'WH-6', 'Events are also sent when a payment is created pending and when it enters requires_action.'),
  bug('wh-stale-payment', 'WH-7', 'data.payment is the snapshot taken before the status change, so it shows the old status.'),
  bug('wh-new-id-on-retry', 'WH-8', 'Each retry of a delivery gets a new event id.'),
  bug('wh-no-retry', 'WH-9', 'A failed delivery is never retried.'),
  bug('wh-retry-fixed-interval', 'WH-9', 'Failed deliveries are retried at a constant interval (the first backoff step every time) instead of growing ones.'),
  bug('wh-live-to-test-endpoint', 'WH-10', 'Endpoints are chosen by merchant only, so live events also go to test endpoints.'),
  bug('wh-created-at-iso', 'WH-3', 'The envelope\'s created_at is an ISO 8601 string (`new Date().toISOString()`) instead of Unix seconds.'),
  // ERR: errors
  bug('err-missing-request-id', 'ERR-1', 'Error bodies carry no request_id.'),
  bug('err-wrong-type', 'ERR-2', '404 resource_missing errors have type api_error.'),
  bug('err-card-error-code', 'ERR-3', 'card_error responses carry the decline reason in code instead of card_declined.'),
  bug('err-500-as-502', 'ERR-4', 'Load shedding while the processor is unreachable answers 502 bad_gateway instead of 503 service_unavailable.'),
  bug('err-text-plain', 'ERR-5', 'Error responses are sent with Content-Type text/plain.'),
  // AUTH
  bug('auth-accepts-basic', 'AUTH-1', 'The Authorization scheme is not checked: `Basic <key>` is accepted.'),
  bug('auth-ratelimit-headers-on-401', 'AUTH-4', 'Rate headers are written on 401 responses too.'),
  bug('auth-live-accepts-test-card', 'AUTH-7', 'A live key is processed like a test key, so sandbox test cards succeed in live mode.'),
  bug('auth-live-sees-test', 'AUTH-8', 'Retrieval checks the merchant but not the mode: a live key reads test payments.'),
  bug('auth-bad-prefix-400', 'AUTH-2', 'A key that starts with no known prefix is refused by request validation: 400 parameter_invalid (param Authorization) instead of 401 invalid_api_key.'),
  bug('auth-unknown-key-403', 'AUTH-3', 'A well-formed key that is not on file is answered 403 not_permitted, as if it were known but lacked permission, instead of 401 invalid_api_key.'),
  bug('auth-create-livemode-false', 'AUTH-5', 'Create answers (Direct API and hosted) say livemode false whatever the key (a sandbox-era default in the create response); retrievals and lists are right.'),
  // TEST: test mode
  bug('test-decline-422', 'TEST-1', 'Sandbox decline cards are refused synchronously with 422 card_declined.'),
  bug('test-amex-cvc-rejected', 'TEST-2', 'Every CVC must have 3 digits, so American Express cards with 4-digit CVCs are refused.'),
  bug('test-hpp-requires-3ds', 'TEST-3', 'The hosted page accepts an approval only after a 3DS challenge: a card approved without one (the success test card) ends failed generic_decline.'),
  // FT: faults
  bug('ft-lose-payment-on-upstream-error', 'FT-1', 'A payment whose first processor call cannot connect is dropped from the store after the 201.'),
  bug('ft-no-retry-after-outage', 'FT-2', 'After a failed processor call the payment is not retried and stays pending for ever.'),
  bug('ft-503-after-store', 'FT-3', 'A create whose first processor call cannot connect answers 503 service_unavailable, although the payment was already stored and is retried in the background: a client retry with the same key creates a second payment.'),
  bug('ft-auth-503-during-outage', 'FT-5', 'While payments wait on an unreachable processor, the auth layer reports its validation backend as down: a request that fails authentication gets 503 service_unavailable instead of 401 invalid_api_key.'),
  bug('ft-500-on-upstream-error', 'FT-4', 'A create whose first processor call fails (refused, reset, malformed) within the create wait answers 500 internal_error (the upstream exception is not caught), and the payment is discarded.'),
  // SEC: isolation
  bug('sec-cross-merchant-read', 'SEC-1', 'Retrieval by id checks the mode but not the merchant.'),
  bug('sec-cross-merchant-refund-500', 'SEC-1', "A refund looks its payment up by mode only and asserts the merchant after handling it: another merchant's refund is carried out (when valid), and every answer to it is 500 internal_error."),
  bug('sec-key-in-error', 'SEC-2', 'The 401 for an unknown key echoes the key in its message.'),
] as const satisfies readonly BugInfo[];

export type BugName = (typeof BUGS)[number]['name'];
export const BUG_NAMES: readonly BugName[] = BUGS.map((b) => b.name);

export function isBugName(name: string): name is BugName {
  return (BUG_NAMES as readonly string[]).includes(name);
}

/** One boolean per bug, looked up once at start so hot paths test a field. */
export type BugFlags = Readonly<Record<BugName, boolean>>;
export function bugFlags(names: readonly string[]): BugFlags {
  const unknown = names.filter((n) => !isBugName(n));
  if (unknown.length) throw new Error(`unknown bug name(s): ${unknown.join(', ')}. Known: ${BUG_NAMES.join(', ')}`);
  const out = {} as Record<BugName, boolean>;
  for (const n of BUG_NAMES) out[n] = names.includes(n);
  return out;
}
