/**
 * The places a bad-input case touches where the spec contradicts itself or leaves the answer
 * open, each with the spec's own words (verbatim, so test/spec pins them to the text) and what
 * paystorm accepts there. A case of src/spec/bad-inputs.ts that is not plainly demanded cites
 * one of these by id; docs/open-readings.md carries the same table for readers.
 *
 * What a reading lets through is the case's `expectation` (bad-inputs.ts):
 * - `lenient-ok`: no rule demands a refusal; any refusal is fine and a 2xx is an observation;
 * - `either`: the spec allows the acceptance and the expected refusal; a 2xx is an observation
 *   (the payment it made is judged like any other), a refusal must be the expected one;
 * - `demanded` with `altParams`: the refusal is demanded, and `param` may name any of the fields
 *   the reading lists (never another one).
 */

/** Words of the spec, verbatim, and the section they are in (`Heading > Subheading`, a note in parentheses). */
export interface SpecWords {
  section: string;
  words: string;
}

export interface OpenReading {
  id: string;
  /** `contradiction`: two sections say different things; `open`: the spec leaves the answer to the service. */
  kind: 'contradiction' | 'open';
  /** What the bad-input cases citing it probe. */
  topic: string;
  /** The spec's words on each side (contradiction) or those that leave it open. */
  words: SpecWords[];
  /** Why no single answer is demanded, in the spec's terms (a case's `why` starts with it). */
  why: string;
  /** What paystorm accepts. */
  accepts: string;
}

const A_TABLE = 'Resources and their fields > Input objects for payment creation (presentation A)';
const B_TABLE = 'Resources and their fields > Input objects for payment creation (presentation B)';
const DIRECT = 'Endpoints > Create a Direct API payment';
const LENIENT = 'Any refusal; a 2xx is the observation lenient-input-<rule>, never a violation.';

const reading = (r: OpenReading): OpenReading => r;

export const OPEN_READINGS = {
  hostedReturnUrl: reading({
    id: 'hosted-return-url',
    kind: 'contradiction',
    topic: 'A hosted create without return_url',
    words: [
      { section: 'Endpoints > Create a hosted payment page payment', words: 'Body: `amount`, `currency`, optional `merchant_reference`, `billing_details` (required), optional `description`, `return_url`.' },
      { section: A_TABLE, words: '| return_url | string | yes | Where the customer lands after 3DS or after the hosted page |' },
      { section: B_TABLE, words: '| return_url | string | required when 3DS is triggered |' },
    ],
    why: 'the hosted endpoint\'s body line marks billing_details "(required)" and lists return_url after "optional `description`" with no mark of its own, while presentation A\'s input table marks return_url "yes" and B\'s requires it only "when 3DS is triggered"',
    accepts: 'A 201 (its payment judged as any hosted create: PAY-1, PAY-12), or 400 parameter_invalid naming return_url; any other refusal fails PAY-3.',
  }),
  dualShapeCard: reading({
    id: 'dual-shape-card',
    kind: 'open',
    topic: 'A Direct API create carrying neither input shape\'s card: which field `param` names',
    words: [
      { section: DIRECT, words: 'Body: see the input tables in Resources and their fields.' },
      { section: A_TABLE, words: '| payment_method_data | object | Direct API only |' },
      { section: B_TABLE, words: '| card | object | Direct API |' },
    ],
    why: "the Direct API endpoint's body is both input tables, so a deployment may read both shapes; a create with neither A's payment_method_data nor B's card lacks both, and naming either answers PAY-3",
    accepts: '400 parameter_invalid whose param names payment_method_data or card; any other param (or none) fails PAY-3.',
  }),
  dualShapeCustomer: reading({
    id: 'dual-shape-customer',
    kind: 'open',
    topic: 'A Direct API create carrying neither input shape\'s customer data: which field `param` names',
    words: [
      { section: DIRECT, words: 'Body: see the input tables in Resources and their fields.' },
      { section: A_TABLE, words: '| billing_details | object | yes |' },
      { section: B_TABLE, words: '| customer | object | Direct API |' },
    ],
    why: "the Direct API endpoint's body is both input tables, so a deployment may read both shapes; a create with neither A's billing_details nor B's customer lacks both, and naming either answers PAY-3",
    accepts: '400 parameter_invalid whose param names billing_details or customer; any other param (or none) fails PAY-3.',
  }),
  typeOnly: reading({
    id: 'type-only',
    kind: 'open',
    topic: 'A value of another JSON type that converts without loss (amount "1000", currency 978, merchant_reference "1234567890", exp_month "12", cvc 123)',
    words: [
      { section: A_TABLE, words: '`card` = {number, exp_month (integer), exp_year (integer), cvc (string), holder_name}' },
      { section: B_TABLE, words: '| amount | integer | yes | Positive, minimum 1, minor units |' },
    ],
    why: 'the spec names the type only; no rule demands a 400 for another JSON type',
    accepts: LENIENT,
  }),
  noStatedConstraint: reading({
    id: 'no-stated-constraint',
    kind: 'open',
    topic: 'A value the input tables state no constraint for (a fractional amount, payment_method_data.type other than card, a malformed email, exp_month 13, letters in a card number)',
    words: [
      { section: A_TABLE, words: '`type` = `card`' },
      { section: 'Errors > Decline and failure codes', words: '| invalid_number | Invalid card number |' },
      { section: 'Limits > Test mode rules', words: 'Other numbers have unpredictable outcomes, possibly `generic_decline`.' },
    ],
    why: 'PAY-5 lists the constraints it demands a 400 for, and this is not one of them',
    accepts: `${LENIENT} A card value may be declined instead (201 then failed, or 422 card_error).`,
  }),
  cvcLength: reading({
    id: 'cvc-length',
    kind: 'open',
    topic: 'A CVC of the wrong length',
    words: [{ section: 'Limits > Test mode rules', words: 'any CVC (3 digits, 4 for the card type with 4-digit codes)' }],
    why: 'TEST-2 says which CVCs are accepted, not that others get a 400 (the card may be declined instead)',
    accepts: LENIENT,
  }),
  returnUrlRuleBOnly: reading({
    id: 'return-url-rule-b-only',
    kind: 'open',
    topic: 'A return_url that is not https (nor http://localhost) in presentation A\'s shape or on the hosted page',
    words: [
      { section: B_TABLE, words: 'Must use https, or http://localhost for local development' },
      { section: A_TABLE, words: '| return_url | string | yes | Where the customer lands after 3DS or after the hosted page |' },
    ],
    why: "the https-or-localhost rule of return_url is stated in presentation B's input table only",
    accepts: LENIENT,
  }),
  metadataBOnly: reading({
    id: 'metadata-b-only',
    kind: 'open',
    topic: 'metadata over its limits in presentation A\'s shape',
    words: [
      { section: B_TABLE, words: '| metadata | object | no | At most 50 keys.' },
      { section: 'Limits', words: '| metadata | At most 50 keys, values at most 500 characters, keys recommended within 40 characters | Direct API payment |' },
    ],
    why: "presentation A's input table has no metadata, so an A service may ignore it",
    accepts: LENIENT,
  }),
  merchantReferenceAOnly: reading({
    id: 'merchant-reference-a-only',
    kind: 'open',
    topic: 'merchant_reference of the wrong length in presentation B\'s shape',
    words: [
      { section: A_TABLE, words: '| merchant_reference | integer | no | 10 digits.' },
      { section: 'Limits', words: '| merchant_reference | Integer of exactly 10 digits | Payment create, hosted create |' },
    ],
    why: "presentation B's input table has no merchant_reference, so a B service may ignore it",
    accepts: LENIENT,
  }),
  cardSubFieldsA: reading({
    id: 'card-sub-fields-a',
    kind: 'open',
    topic: 'A card sub-field missing in presentation A\'s shape',
    words: [
      { section: A_TABLE, words: '`card` = {number, exp_month (integer), exp_year (integer), cvc (string), holder_name}' },
      { section: B_TABLE, words: '`number`, `exp_month`, `exp_year`, `cvc`, `holder_name`. All sub-fields required' },
    ],
    why: "presentation A's input table does not state the card's sub-fields required (B's does)",
    accepts: LENIENT,
  }),
  returnUrlAt3ds: reading({
    id: 'return-url-at-3ds',
    kind: 'open',
    topic: 'A presentation B create of the 3DS card without return_url',
    words: [
      { section: B_TABLE, words: '| return_url | string | required when 3DS is triggered |' },
      { section: 'What the service does', words: 'The issuer decides this, and the client cannot request it.' },
    ],
    why: 'presentation B requires return_url "when 3DS is triggered", and the issuer decides 3DS after the create',
    accepts: `${LENIENT} The service may enforce it when 3DS triggers (fail the payment) instead.`,
  }),
  refundBodyNotShown: reading({
    id: 'refund-body-not-shown',
    kind: 'open',
    topic: 'A refund amount of 0, negative, fractional or a string',
    words: [
      { section: 'Endpoints > Refund a payment', words: 'Request and response bodies of the refund operation: not shown.' },
      { section: 'Endpoints > Refund a payment', words: 'Refund validation failures return `422` with `error.code` = `action_not_allowed`' },
    ],
    why: 'the refund body is not shown; a refund validation failure may be 422 action_not_allowed',
    accepts: `${LENIENT} The payment must still show nothing refunded (REF-4, bad-refund-no-effect).`,
  }),
  createdInt64Only: reading({
    id: 'created-int64-only',
    kind: 'open',
    topic: 'A created[gte] or created[lt] that is not an integer',
    words: [{ section: 'Endpoints > List payments', words: '| created[gte] | integer (int64) | Unix seconds, inclusive lower bound on creation time |' }],
    why: 'the spec names created[gte] and created[lt] an integer (int64) only; LIST-7 demands no 400',
    accepts: LENIENT,
  }),
} as const satisfies Record<string, OpenReading>;

export type OpenReadingId = (typeof OPEN_READINGS)[keyof typeof OPEN_READINGS]['id'];
export const OPEN_READING_LIST: readonly OpenReading[] = Object.freeze(Object.values(OPEN_READINGS));

export function openReading(id: string): OpenReading | undefined {
  return OPEN_READING_LIST.find((r) => r.id === id);
}
