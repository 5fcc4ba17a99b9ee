/**
 * Rule ids of ../shared/spec/rules.md, the stable names every invariant cites.
 * `test/spec/rules.test.ts` checks this list against the catalog text, so a rule
 * added there and missed here fails the suite.
 */
export const RULE_FAMILIES = ['AUTH', 'RL', 'IDEM', 'PAY', 'SM', 'REF', 'LIST', 'WH', 'ERR', 'TEST', 'FT', 'SEC'] as const;
export type RuleFamily = (typeof RULE_FAMILIES)[number];

/** How a rule can be judged from outside: see the markers in rules.md. */
export type RuleKind = 'testable' | 'observe' | 'implied' | 'not-testable';

export interface RuleInfo {
  id: string;
  family: RuleFamily;
  kind: RuleKind;
  title: string;
}

function r(id: string, kind: RuleKind, title: string): RuleInfo {
  return { id, family: id.split('-')[0] as RuleFamily, kind, title };
}

export const RULES: readonly RuleInfo[] = [
  r('AUTH-1', 'testable', 'Missing/malformed Authorization or non-Bearer gives 401 invalid_api_key'),
  r('AUTH-2', 'testable', 'Unknown key prefix gives 401 invalid_api_key'),
  r('AUTH-3', 'testable', 'Unknown or revoked well-formed key gives 401 invalid_api_key'),
  r('AUTH-4', 'testable', '401 responses carry no X-RateLimit-* header'),
  r('AUTH-5', 'testable', 'The key decides the mode (livemode)'),
  r('AUTH-6', 'observe', '403 has code not_permitted, type authentication_error'),
  r('AUTH-7', 'testable', 'A live key never succeeds a payment with a sandbox test card'),
  r('AUTH-8', 'testable', 'Test and live data are isolated (404 resource_missing)'),
  r('RL-1', 'testable', 'No fixed window holds more non-429 responses than the limit'),
  r('RL-2', 'testable', 'The window is fixed: starts at first request, resets at first request after 60 s'),
  r('RL-3', 'testable', 'No 60 s span holds more than twice the limit'),
  r('RL-4', 'testable', 'Rate headers on every authenticated /v1/* response'),
  r('RL-5', 'testable', 'X-RateLimit-Remaining never negative, falls by one per counted request'),
  r('RL-6', 'implied', 'X-RateLimit-Reset is Unix seconds, constant within a window, not in the past'),
  r('RL-7', 'testable', 'Over the limit: 429 rate_limit_exceeded with Retry-After and remaining 0'),
  r('RL-8', 'implied', 'Retry-After is honest'),
  r('RL-9', 'testable', 'Counters are per API key'),
  r('IDEM-1', 'testable', 'POST without Idempotency-Key gives 400 parameter_missing'),
  r('IDEM-2', 'testable', 'Idempotency-Key longer than 255 characters gives 400'),
  r('IDEM-3', 'testable', 'Same key, same body replays the original 2xx response'),
  r('IDEM-4', 'testable', 'Same key, different body gives 409 idempotency_error'),
  r('IDEM-5', 'testable', 'Same key while the first is in flight gives 409 idempotency_key_in_use'),
  r('IDEM-6', 'testable', 'Concurrent requests sharing one key create at most one object'),
  r('IDEM-7', 'testable', 'Only 2xx responses are kept'),
  r('IDEM-8', 'testable', 'Keys are scoped per API key'),
  r('IDEM-9', 'testable', 'Keys are scoped per operation'),
  r('IDEM-10', 'testable', 'merchant_reference never deduplicates'),
  r('IDEM-11', 'not-testable', 'A key expires after 24 hours'),
  r('IDEM-12', 'observe', '409 duplicate_request only where no new object was created'),
  r('PAY-1', 'testable', 'Create returns 201 with a pay_ id'),
  r('PAY-2', 'testable', 'amount below 1 gives 400 parameter_invalid param amount'),
  r('PAY-3', 'testable', 'Missing required body field gives 400 parameter_invalid naming it'),
  r('PAY-4', 'testable', 'Non-JSON body gives 400 invalid_request_body'),
  r('PAY-5', 'testable', 'Field constraints are enforced with 400 parameter_invalid'),
  r('PAY-6', 'testable', 'Create response status is allowed for a new payment'),
  r('PAY-7', 'testable', 'A decline is not an HTTP error'),
  r('PAY-8', 'testable', 'Payment carries the amount, currency, description and metadata sent; they never change'),
  r('PAY-9', 'implied', 'No full card number or CVC returned; card.last4 matches'),
  r('PAY-10', 'testable', 'Presentation A amount_refundable is consistent'),
  r('PAY-11', 'testable', 'next_action non-null exactly when requires_action'),
  r('PAY-12', 'testable', 'Hosted create returns REQUIRES_ACTION with hosted_payment_page next_action'),
  r('PAY-13', 'testable', 'Presentation B redirect_url null for Direct API, set for hosted'),
  r('PAY-14', 'testable', 'Presentation B succeeded_at/failed_at set exactly when succeeded/failed'),
  r('PAY-15', 'testable', 'A succeeded payment carries the masked card object'),
  r('PAY-16', 'testable', 'A failed payment carries its reason; sandbox decline cards give their codes'),
  r('PAY-17', 'testable', 'Unknown payment id gives 404 resource_missing'),
  r('SM-1', 'testable', 'Every status sequence follows the transition table'),
  r('SM-2', 'testable', 'Terminal statuses never change'),
  r('SM-3', 'testable', 'Sandbox cards reach their designated outcome'),
  r('SM-4', 'testable', '3DS completed succeeds, failed fails with three_d_secure_failed, abandoned expires'),
  r('SM-5', 'testable', 'Hosted page submitted with a 3DS card stays requires_action with reason three_d_secure'),
  r('SM-6', 'testable', 'With no faults, a pending payment settles within the bound'),
  r('REF-1', 'testable', 'Refund of a succeeded payment is accepted and appears in refunds'),
  r('REF-2', 'testable', 'refunded_amount is the sum of succeeded refunds'),
  r('REF-3', 'testable', 'Succeeded refunds never exceed the amount, also concurrently'),
  r('REF-4', 'testable', 'Over-refund gives 422 action_not_allowed with the bracket sub-code form'),
  r('REF-5', 'testable', 'Refund of a payment that is not succeeded gives 422 action_not_allowed'),
  r('REF-6', 'testable', 'refunded_at set exactly when the refunded total reaches the amount'),
  r('REF-7', 'testable', 'Refund create is idempotent under its own operation scope'),
  r('LIST-1', 'testable', 'List response has object list, data, has_more, url'),
  r('LIST-2', 'testable', 'data is newest first'),
  r('LIST-3', 'testable', 'limit defaults to 10, accepts 1..100, else 400'),
  r('LIST-4', 'testable', 'Unknown starting_after gives 400 parameter_invalid'),
  r('LIST-5', 'testable', 'Cursor walk yields each payment exactly once'),
  r('LIST-6', 'testable', 'status filter returns only that status; unknown status 400'),
  r('LIST-7', 'testable', 'created[gte] inclusive, created[lt] exclusive'),
  r('LIST-8', 'testable', 'Filters apply before pagination'),
  r('LIST-9', 'testable', 'Test and live payments never appear in each other\'s lists'),
  r('WH-1', 'testable', 'Every delivery is signed with HMAC-SHA256 over <t>.<body>'),
  r('WH-2', 'testable', 't is within 5 minutes of receipt'),
  r('WH-3', 'testable', 'Envelope has id, type, created_at, livemode, data'),
  r('WH-4', 'testable', 'Every terminal payment gets an event of the matching type'),
  r('WH-5', 'testable', 'Every settled refund gets refund.succeeded/failed with payment_id'),
  r('WH-6', 'testable', 'No event for requires_action, pending or processing'),
  r('WH-7', 'testable', 'data.payment status matches the event type'),
  r('WH-8', 'testable', 'Retries of one event keep its id'),
  r('WH-9', 'testable', 'A failed delivery is retried with growing intervals'),
  r('WH-10', 'testable', 'Test-mode events carry livemode false and go to test endpoints'),
  r('ERR-1', 'testable', 'Every error response has the full error object with req_ request_id'),
  r('ERR-2', 'testable', 'error.type, code and HTTP status agree with the table'),
  r('ERR-3', 'testable', 'card_error has code card_declined; decline_code null elsewhere'),
  r('ERR-4', 'testable', '5xx only 500 internal_error or 503 service_unavailable'),
  r('ERR-5', 'testable', 'Responses are JSON and amounts are integers'),
  r('TEST-1', 'testable', 'Sandbox decline cards give 201 then failed, never a synchronous 422'),
  r('TEST-2', 'testable', 'Any future expiry, CVC of the right length and holder name accepted'),
  r('TEST-3', 'testable', 'Test cards work on the hosted page with the same outcomes'),
  r('FT-1', 'implied', 'Every 201 payment can be retrieved afterwards'),
  r('FT-2', 'implied', 'After faults heal, every pending payment settles within a bound'),
  r('FT-3', 'implied', 'A client retry with the same key after a time-out or 5xx never creates a second payment'),
  r('FT-4', 'implied', 'Under upstream faults: 201 pending or 503 service_unavailable, never malformed'),
  r('FT-5', 'implied', 'Auth, rate limiting and idempotency unchanged while upstream fails'),
  r('SEC-1', 'implied', 'One merchant cannot read, list or refund another\'s payment'),
  r('SEC-2', 'implied', 'No response, error or webhook echoes an API key or a full card number'),
];

export type RuleId = string;
export const RULE_IDS: readonly string[] = RULES.map((x) => x.id);
const byId = new Map(RULES.map((x) => [x.id, x]));
export function ruleInfo(id: string): RuleInfo | undefined {
  return byId.get(id);
}
export function isRuleId(id: string): boolean {
  return byId.has(id);
}
