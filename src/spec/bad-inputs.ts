/**
 * Bad requests for every input rule of the spec, in both input shapes: a
 * catalog written from the spec text (input tables, Limits, error codes,
 * idempotency rules), so scenarios and the oracle can probe any target.
 *
 * The fields, which are required and their limits come from the input tables (inputs.ts
 * INPUT_TABLES, LIMITS); whether a shape's own table states a rule decides `lenient-ok`.
 *
 * A few cases are the other side of PAY-5: a valid request at a limit (description of exactly
 * 500 characters, 50 metadata keys...) or using what a rule allows (a 41-character metadata key,
 * an http://localhost return_url), expecting 201; an off-by-one or over-strict check refuses them.
 *
 * A case takes a valid request (`validBadInputBase`) and breaks one thing:
 * - create / create_hpp / refund: `mutate` returns the JSON body to send, or a raw string sent as-is;
 * - list: `mutate` returns the query parameters (string values) of GET /v1/payments;
 * - refund: the body of POST /v1/payments/{id}/refund for a succeeded payment of at least REFUND_BASE_PAYMENT_AMOUNT.
 * `headers`: a value replaces the header the client would send, null removes it.
 * `expectParam`: the error's `param` must contain it (PAY-3 matching, see paramMatches); null = no expectation.
 *
 * Each case names the presentation it is sent to (a service is sent only its own input shape's
 * cases: a field the other shape never had is not "missing") and the one rule that demands its
 * expected answer for that shape. Where the spec contradicts itself or leaves the answer open,
 * the case cites the reading it relies on (`reading`, src/spec/open-readings.ts, listed in
 * docs/open-readings.md) and its expectation says what that reading lets through:
 * - `lenient-ok`: no rule demands a refusal (the spec names a type only, states a field for the
 *   other shape only, or leaves the moment open): any refusal is fine and a 2xx is an observation;
 * - `either`: the spec allows the acceptance and the expected refusal: a 2xx is an observation
 *   (its payment is judged like any other), a refusal must be the expected one;
 * - `demanded` with `altParams`: the refusal is demanded and `param` may name any of those fields instead.
 */
import { DEFAULT_TEST_CARDS, type CardsFile } from './cards.ts';
import {
  BILLING_ADDRESS_REQUIRED,
  CARD_FIELDS,
  CUSTOMER_B_FIELDS,
  LIST_PARAMS,
  SHAPE_CARD_FIELD,
  SHAPE_CUSTOMER_FIELD,
  directCreateBody,
  hostedCreateBody,
  inputRow,
  type InputShape,
} from './inputs.ts';
import { LIMITS } from './limits.ts';
import { OPEN_READINGS, type OpenReading, type OpenReadingId } from './open-readings.ts';
import type { Presentation } from './payment.ts';

export type BadInputOp = 'create' | 'create_hpp' | 'list' | 'refund';
export type BadInputBody = Record<string, unknown>;
/**
 * `demanded`: a rule demands the expected answer; `lenient-ok`: no rule does, so any refusal is fine
 * and a 2xx is an observation; `either`: the spec allows a 2xx and the expected refusal, nothing else.
 */
export const BAD_INPUT_EXPECTATIONS = ['demanded', 'lenient-ok', 'either'] as const;
export type BadInputExpectation = (typeof BAD_INPUT_EXPECTATIONS)[number];

export interface BadInputCase {
  /** Unique name, `op/shape/what`. */
  case: string;
  op: BadInputOp;
  /** The input shape the valid body uses; absent when the case does not depend on it. */
  shape?: InputShape;
  /** Rule ids of rules.md the case exercises. */
  rules: string[];
  /** The presentation of the service it is sent to: its input shape's, or 'any' (hosted, list, refund, body and header cases). */
  presentation: Presentation | 'any';
  /** The rule that demands the expected answer (demanded), or the rule the field falls under (lenient-ok, either). */
  rule: string;
  expectation: BadInputExpectation;
  /** The open reading of the spec the case relies on (every case that is not plainly demanded). */
  reading?: OpenReadingId;
  /** Why one answer is not demanded, in the spec's terms (the reading's, with what this case adds). */
  why?: string;
  mutate: (valid: BadInputBody, cards?: Partial<CardsFile>) => BadInputBody | string;
  headers?: Record<string, string | null>;
  expectStatus: number;
  expectCode: string;
  expectParam: string | null;
  /** Fields `param` may name instead of expectParam (the reading says why); never any other. */
  altParams?: string[];
}

/** Refund cases need a succeeded payment of at least this amount (minor units). */
export const REFUND_BASE_PAYMENT_AMOUNT = 1000;
/** A retrieve of an id no payment has: "Unknown id: 404 resource_missing" (PAY-17). */
export const UNKNOWN_ID_PROBE = { case: 'retrieve/unknown-id', expectStatus: 404, expectCode: 'resource_missing', expectParam: null, rule: 'PAY-17' } as const;
export const BAD_INPUT_RETURN_URL = 'https://example.com/return';

/** A valid request of each op (a card expiring in three years, so it never goes stale). */
export function validBadInputBase(op: BadInputOp, shape: InputShape = 'B', cards: Partial<CardsFile> = DEFAULT_TEST_CARDS): BadInputBody {
  if (op === 'list') return {};
  if (op === 'refund') return { amount: 100 };
  const input = {
    amount: REFUND_BASE_PAYMENT_AMOUNT,
    currency: 'EUR',
    description: 'bad-input probe',
    returnUrl: BAD_INPUT_RETURN_URL,
    card: { number: cards.succeeds ?? DEFAULT_TEST_CARDS.succeeds, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123', holder_name: 'Pay Storm' },
  };
  if (op === 'create_hpp') return hostedCreateBody(input);
  return directCreateBody(input, shape);
}

/** PAY-3 matching: `param` contains the expected field name; null expects nothing. */
export function paramMatches(expected: string | null, actual: unknown): boolean {
  return expected === null || (typeof actual === 'string' && actual.includes(expected));
}

/** The query string of a list case's parameters. */
export function listQueryString(q: BadInputBody): string {
  return Object.entries(q)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

// ---------------------------------------------------------------- helpers

function clone(b: BadInputBody): BadInputBody {
  return JSON.parse(JSON.stringify(b)) as BadInputBody;
}
/** Sets (or, with undefined, deletes) a dotted path in a copy of the body. */
function at(path: string, value: unknown): (b: BadInputBody) => BadInputBody {
  return (b) => {
    const out = clone(b);
    const parts = path.split('.');
    let o: Record<string, unknown> = out;
    for (const p of parts.slice(0, -1)) {
      if (typeof o[p] !== 'object' || o[p] === null) o[p] = {};
      o = o[p] as Record<string, unknown>;
    }
    const last = parts[parts.length - 1];
    if (value === undefined) delete o[last];
    else o[last] = value;
    return out;
  };
}
const without = (path: string) => at(path, undefined);
const raw = (text: string) => () => text;
const manyKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

const bad400 = (param: string | null) => ({ expectStatus: 400, expectCode: 'parameter_invalid', expectParam: param });
/** A valid request at a limit (or using what a rule allows): it must be accepted. */
const accepted = { expectStatus: 201, expectCode: '', expectParam: null };

// ---------------------------------------------------------------- the catalog

type CaseInput = Omit<BadInputCase, 'presentation' | 'rule' | 'expectation'> & Partial<Pick<BadInputCase, 'presentation' | 'rule' | 'expectation'>>;
const cases: BadInputCase[] = [];
/** Defaults: sent to the presentation of its shape (else any), judged under its first rule, demanded. */
const add = (c: CaseInput) => cases.push({ ...c, presentation: c.presentation ?? c.shape ?? 'any', rule: c.rule ?? c.rules[0], expectation: c.expectation ?? 'demanded' });
const cites = (r: OpenReading, detail?: string) => ({ reading: r.id as OpenReadingId, why: detail ? `${r.why} (${detail})` : r.why });
/** A case no rule demands a 400 for: any refusal is fine, a lenient 2xx is an observation. */
const lenient = (r: OpenReading, detail?: string) => ({ expectation: 'lenient-ok' as const, ...cites(r, detail) });
/** A case the spec allows to be accepted or refused: a 2xx is an observation, a refusal must be the expected one. */
const either = (r: OpenReading) => ({ expectation: 'either' as const, ...cites(r) });
/** A demanded refusal whose `param` may name one of `fields` instead. */
const orParams = (r: OpenReading, ...fields: string[]) => ({ ...cites(r), altParams: fields });
const R = OPEN_READINGS;

/** The cases a service of this presentation is sent: its own input shape's, and those of no shape. */
export function badInputCasesFor(presentation: Presentation): BadInputCase[] {
  return cases.filter((c) => c.presentation === 'any' || c.presentation === presentation);
}

// Fields both input shapes share (spec: input tables and Limits).
for (const shape of ['A', 'B'] as const) {
  const s = (name: string) => `create/${shape}/${name}`;
  add({ case: s('amount-zero'), op: 'create', shape, rules: ['PAY-2'], mutate: at('amount', 0), ...bad400('amount') });
  add({ case: s('amount-negative'), op: 'create', shape, rules: ['PAY-2'], mutate: at('amount', -100), ...bad400('amount') });
  add({ case: s('amount-fractional'), op: 'create', shape, rules: ['PAY-5'], mutate: at('amount', 10.5), ...bad400('amount'), ...lenient(R.noStatedConstraint, 'PAY-2 demands it only below 1') });
  add({ case: s('amount-string'), op: 'create', shape, rules: ['PAY-5'], mutate: at('amount', '1000'), ...bad400('amount'), ...lenient(R.typeOnly) });
  add({ case: s('amount-missing'), op: 'create', shape, rules: ['PAY-3'], mutate: without('amount'), ...bad400('amount') });
  add({ case: s('currency-missing'), op: 'create', shape, rules: ['PAY-3'], mutate: without('currency'), ...bad400('currency') });
  add({ case: s('currency-not-iso'), op: 'create', shape, rules: ['PAY-5'], mutate: at('currency', 'XXQ'), ...bad400('currency') });
  add({ case: s('currency-four-letters'), op: 'create', shape, rules: ['PAY-5'], mutate: at('currency', 'EURO'), ...bad400('currency') });
  add({ case: s('currency-number'), op: 'create', shape, rules: ['PAY-5'], mutate: at('currency', 978), ...bad400('currency'), ...lenient(R.typeOnly) });
  // A table without merchant_reference (B's): a service of that shape may ignore it.
  const refB = !inputRow(shape, 'merchant_reference') ? lenient(R.merchantReferenceAOnly) : {};
  add({ case: s('merchant-reference-9-digits'), op: 'create', shape, rules: ['PAY-5'], mutate: at('merchant_reference', 123456789), ...bad400('merchant_reference'), ...refB });
  add({ case: s('merchant-reference-11-digits'), op: 'create', shape, rules: ['PAY-5'], mutate: at('merchant_reference', 12345678901), ...bad400('merchant_reference'), ...refB });
  add({ case: s('merchant-reference-string'), op: 'create', shape, rules: ['PAY-5'], mutate: at('merchant_reference', '1234567890'), ...bad400('merchant_reference'), ...lenient(R.typeOnly) });
  add({ case: s('description-501-chars'), op: 'create', shape, rules: ['PAY-5'], mutate: at('description', 'd'.repeat(LIMITS.descriptionMaxLength + 1)), ...bad400('description') });
  // metadata and the https rule of return_url are in presentation B's input table only.
  const metaA = !inputRow(shape, 'metadata') ? lenient(R.metadataBOnly) : {};
  const urlA = !inputRow(shape, 'return_url')?.httpsOrLocalhost ? lenient(R.returnUrlRuleBOnly) : {};
  add({ case: s('metadata-51-keys'), op: 'create', shape, rules: ['PAY-5'], mutate: at('metadata', manyKeys(LIMITS.metadataMaxKeys + 1)), ...bad400('metadata'), ...metaA });
  add({ case: s('metadata-value-501-chars'), op: 'create', shape, rules: ['PAY-5'], mutate: at('metadata', { note: 'v'.repeat(LIMITS.metadataValueMaxLength + 1) }), ...bad400('metadata'), ...metaA });
  add({ case: s('return-url-plain-http'), op: 'create', shape, rules: ['PAY-5'], mutate: at('return_url', 'http://example.com/return'), ...bad400('return_url'), ...urlA });
  add({ case: s('return-url-not-a-url'), op: 'create', shape, rules: ['PAY-5'], mutate: at('return_url', 'not a url'), ...bad400('return_url'), ...urlA });
}

// The other side of PAY-5: values at its limits, and what it allows, must be accepted (201). An
// off-by-one or an over-strict check refuses them. metadata and the localhost return_url are in
// presentation B's input table only, so they are sent to B services only.
for (const shape of ['A', 'B'] as const) {
  add({ case: `create/${shape}/description-500-chars-accepted`, op: 'create', shape, rules: ['PAY-5'], mutate: at('description', 'd'.repeat(LIMITS.descriptionMaxLength)), ...accepted });
}
add({ case: 'create/B/metadata-50-keys-accepted', op: 'create', shape: 'B', rules: ['PAY-5'], mutate: at('metadata', manyKeys(LIMITS.metadataMaxKeys)), ...accepted });
add({ case: 'create/B/metadata-value-500-chars-accepted', op: 'create', shape: 'B', rules: ['PAY-5'], mutate: at('metadata', { note: 'v'.repeat(LIMITS.metadataValueMaxLength) }), ...accepted });
add({ case: 'create/B/metadata-key-41-chars-accepted', op: 'create', shape: 'B', rules: ['PAY-5'], mutate: at('metadata', { ['k'.repeat(41)]: 'v' }), ...accepted });
add({ case: 'create/B/return-url-localhost-accepted', op: 'create', shape: 'B', rules: ['PAY-5'], mutate: at('return_url', 'http://localhost:3000/return'), ...accepted });

// Presentation A: payment_method_data + billing_details, return_url required.
{
  const shape = 'A' as const;
  const s = (name: string) => `create/A/${name}`;
  add({ case: s('return-url-missing'), op: 'create', shape, rules: ['PAY-3', 'PAY-5'], mutate: without('return_url'), ...bad400('return_url') });
  // A deployment may read both shapes: a body with neither card lacks B's `card` too (and one without billing_details, B's `customer`).
  add({ case: s('payment-method-data-missing'), op: 'create', shape, rules: ['PAY-3'], mutate: without('payment_method_data'), ...bad400('payment_method_data'), ...orParams(R.dualShapeCard, SHAPE_CARD_FIELD.B) });
  add({ case: s('payment-method-type-not-card'), op: 'create', shape, rules: ['PAY-5'], mutate: at('payment_method_data.type', 'bank_transfer'), ...bad400('payment_method_data'), ...lenient(R.noStatedConstraint) });
  add({ case: s('card-missing'), op: 'create', shape, rules: ['PAY-3'], mutate: without('payment_method_data.card'), ...bad400('card') });
  // Presentation B states "all sub-fields required"; A does not, so a missing one is judged in B only.
  const cardSubFieldsA = inputRow(shape, 'payment_method_data')?.subFieldsRequired ? {} : lenient(R.cardSubFieldsA);
  for (const f of CARD_FIELDS) {
    add({ case: s(`card-${f}-missing`), op: 'create', shape, rules: ['PAY-3'], mutate: without(`payment_method_data.card.${f}`), ...bad400(f), ...cardSubFieldsA });
  }
  add({ case: s('card-exp-month-13'), op: 'create', shape, rules: ['PAY-5'], mutate: at('payment_method_data.card.exp_month', 13), ...bad400('exp_month'), ...lenient(R.noStatedConstraint, 'the card may be declined instead') });
  add({ case: s('card-cvc-2-digits'), op: 'create', shape, rules: ['PAY-5', 'TEST-2'], mutate: at('payment_method_data.card.cvc', '12'), ...bad400('cvc'), ...lenient(R.cvcLength) });
  add({ case: s('billing-details-missing'), op: 'create', shape, rules: ['PAY-3'], mutate: without('billing_details'), ...bad400('billing_details'), ...orParams(R.dualShapeCustomer, SHAPE_CUSTOMER_FIELD.B) });
  add({ case: s('billing-email-missing'), op: 'create', shape, rules: ['PAY-3'], mutate: without('billing_details.email'), ...bad400('email') });
  add({ case: s('billing-email-malformed'), op: 'create', shape, rules: ['PAY-5'], mutate: at('billing_details.email', 'not-an-email'), ...bad400('email'), ...lenient(R.noStatedConstraint) });
  add({ case: s('billing-address-missing'), op: 'create', shape, rules: ['PAY-3'], mutate: without('billing_details.address'), ...bad400('address') });
  for (const f of BILLING_ADDRESS_REQUIRED) {
    add({ case: s(`billing-address-${f}-missing`), op: 'create', shape, rules: ['PAY-3'], mutate: without(`billing_details.address.${f}`), ...bad400(f) });
  }
}

// Presentation B: card + customer, every sub-field required; return_url required when 3DS is triggered.
{
  const shape = 'B' as const;
  const s = (name: string) => `create/B/${name}`;
  // A deployment may read both shapes: a body with neither card lacks A's `payment_method_data` too (and one without customer, A's `billing_details`).
  add({ case: s('card-missing'), op: 'create', shape, rules: ['PAY-3'], mutate: without('card'), ...bad400('card'), ...orParams(R.dualShapeCard, SHAPE_CARD_FIELD.A) });
  for (const f of CARD_FIELDS) {
    add({ case: s(`card-${f}-missing`), op: 'create', shape, rules: ['PAY-3'], mutate: without(`card.${f}`), ...bad400(f) });
  }
  add({ case: s('card-number-letters'), op: 'create', shape, rules: ['PAY-5'], mutate: at('card.number', '4242abcd4242abcd'), ...bad400('number'), ...lenient(R.noStatedConstraint, 'an invalid_number decline is allowed too') });
  add({ case: s('card-exp-month-13'), op: 'create', shape, rules: ['PAY-5'], mutate: at('card.exp_month', 13), ...bad400('exp_month'), ...lenient(R.noStatedConstraint, 'the card may be declined instead') });
  add({ case: s('card-exp-month-string'), op: 'create', shape, rules: ['PAY-5'], mutate: at('card.exp_month', '12'), ...bad400('exp_month'), ...lenient(R.typeOnly) });
  add({ case: s('card-cvc-2-digits'), op: 'create', shape, rules: ['PAY-5', 'TEST-2'], mutate: at('card.cvc', '12'), ...bad400('cvc'), ...lenient(R.cvcLength) });
  add({ case: s('card-cvc-number'), op: 'create', shape, rules: ['PAY-5'], mutate: at('card.cvc', 123), ...bad400('cvc'), ...lenient(R.typeOnly) });
  add({ case: s('customer-missing'), op: 'create', shape, rules: ['PAY-3'], mutate: without('customer'), ...bad400('customer'), ...orParams(R.dualShapeCustomer, SHAPE_CUSTOMER_FIELD.A) });
  for (const f of CUSTOMER_B_FIELDS) {
    add({ case: s(`customer-${f}-missing`), op: 'create', shape, rules: ['PAY-3'], mutate: without(`customer.${f}`), ...bad400(f) });
  }
  add({
    case: s('return-url-missing-with-3ds-card'),
    op: 'create',
    shape,
    rules: ['PAY-5'],
    mutate: (b, cards = DEFAULT_TEST_CARDS) => at('card.number', cards.three_ds_challenge ?? DEFAULT_TEST_CARDS.three_ds_challenge)(without('return_url')(b)),
    ...bad400('return_url'),
    // The issuer decides 3DS after the create: the service may enforce it then (fail the payment) instead.
    ...lenient(R.returnUrlAt3ds),
  });
}

// Body and header rules of every POST (PAY-4, IDEM-1, IDEM-2).
add({ case: 'create/any/body-not-json', op: 'create', rules: ['PAY-4'], mutate: raw('{"amount": 1000, "currency": '), expectStatus: 400, expectCode: 'invalid_request_body', expectParam: null });
add({ case: 'create/any/body-empty', op: 'create', rules: ['PAY-4'], mutate: raw(''), expectStatus: 400, expectCode: 'invalid_request_body', expectParam: null });
add({ case: 'create/any/body-form-encoded', op: 'create', rules: ['PAY-4'], mutate: raw('amount=1000&currency=EUR'), expectStatus: 400, expectCode: 'invalid_request_body', expectParam: null });
add({ case: 'create/any/idempotency-key-missing', op: 'create', rules: ['IDEM-1'], mutate: (b) => b, headers: { 'Idempotency-Key': null }, expectStatus: 400, expectCode: 'parameter_missing', expectParam: null });
add({
  case: 'create/any/idempotency-key-256-chars',
  op: 'create',
  rules: ['IDEM-2'],
  mutate: (b) => b,
  headers: { 'Idempotency-Key': 'k'.repeat(LIMITS.idempotencyKeyMaxLength + 1) },
  expectStatus: 400,
  expectCode: 'parameter_invalid',
  expectParam: null,
});

// Hosted payment page: amount, currency, optional merchant_reference, billing_details (required), return_url
// (required by A's input table, unmarked on the endpoint's body line: either answer, see the reading).
// The spec shows this one body form for every deployment, so these go to either presentation.
{
  const s = (name: string) => `create_hpp/A/${name}`;
  const shape = 'A' as const;
  const presentation = 'any' as const;
  add({ case: s('amount-zero'), op: 'create_hpp', shape, presentation, rules: ['PAY-2'], mutate: at('amount', 0), ...bad400('amount') });
  add({ case: s('amount-missing'), op: 'create_hpp', shape, presentation, rules: ['PAY-3'], mutate: without('amount'), ...bad400('amount') });
  add({ case: s('currency-not-iso'), op: 'create_hpp', shape, presentation, rules: ['PAY-5'], mutate: at('currency', 'XXQ'), ...bad400('currency') });
  add({ case: s('merchant-reference-9-digits'), op: 'create_hpp', shape, presentation, rules: ['PAY-5'], mutate: at('merchant_reference', 123456789), ...bad400('merchant_reference') });
  add({ case: s('billing-details-missing'), op: 'create_hpp', shape, presentation, rules: ['PAY-3'], mutate: without('billing_details'), ...bad400('billing_details') });
  add({ case: s('billing-email-missing'), op: 'create_hpp', shape, presentation, rules: ['PAY-3'], mutate: without('billing_details.email'), ...bad400('email') });
  add({ case: s('return-url-missing'), op: 'create_hpp', shape, presentation, rules: ['PAY-3'], mutate: without('return_url'), ...bad400('return_url'), ...either(R.hostedReturnUrl) });
  add({ case: s('return-url-plain-http'), op: 'create_hpp', shape, presentation, rules: ['PAY-5'], mutate: at('return_url', 'http://example.com/return'), ...bad400('return_url'), ...lenient(R.returnUrlRuleBOnly) });
  add({ case: 'create_hpp/any/body-not-json', op: 'create_hpp', rules: ['PAY-4'], mutate: raw('{"amount":'), expectStatus: 400, expectCode: 'invalid_request_body', expectParam: null });
  add({ case: 'create_hpp/any/idempotency-key-missing', op: 'create_hpp', rules: ['IDEM-1'], mutate: (b) => b, headers: { 'Idempotency-Key': null }, expectStatus: 400, expectCode: 'parameter_missing', expectParam: null });
}

// List: limit 1..100, status from presentation B's set, created bounds are integers, a cursor that exists.
{
  const s = (name: string) => `list/${name}`;
  const { min, max } = LIST_PARAMS.limit;
  add({ case: s(`limit-${min - 1}`), op: 'list', rules: ['LIST-3'], mutate: () => ({ limit: String(min - 1) }), ...bad400('limit') });
  add({ case: s(`limit-${max + 1}`), op: 'list', rules: ['LIST-3'], mutate: () => ({ limit: String(max + 1) }), ...bad400('limit') });
  add({ case: s('limit-negative'), op: 'list', rules: ['LIST-3'], mutate: () => ({ limit: '-5' }), ...bad400('limit') });
  add({ case: s('limit-not-a-number'), op: 'list', rules: ['LIST-3'], mutate: () => ({ limit: 'ten' }), ...bad400('limit') });
  add({ case: s('status-unknown'), op: 'list', rules: ['LIST-6'], mutate: () => ({ status: 'bogus' }), ...bad400('status') });
  add({ case: s('status-processing'), op: 'list', rules: ['LIST-6'], mutate: () => ({ status: 'processing' }), ...bad400('status') });
  add({ case: s('starting-after-nonexistent'), op: 'list', rules: ['LIST-4'], mutate: () => ({ starting_after: 'pay_00000000-0000-4000-8000-000000000000' }), ...bad400('starting_after') });
  add({ case: s('created-gte-not-integer'), op: 'list', rules: ['LIST-7'], mutate: () => ({ 'created[gte]': 'yesterday' }), ...bad400('created'), ...lenient(R.createdInt64Only) });
  add({ case: s('created-lt-fractional'), op: 'list', rules: ['LIST-7'], mutate: () => ({ 'created[lt]': '1700000000.5' }), ...bad400('created'), ...lenient(R.createdInt64Only) });
}

// Refund of a succeeded payment (POST /v1/payments/{id}/refund).
{
  const s = (name: string) => `refund/${name}`;
  add({ case: s('amount-zero'), op: 'refund', rules: ['REF-4'], mutate: at('amount', 0), ...bad400('amount'), ...lenient(R.refundBodyNotShown) });
  add({ case: s('amount-negative'), op: 'refund', rules: ['REF-4'], mutate: at('amount', -100), ...bad400('amount'), ...lenient(R.refundBodyNotShown) });
  add({ case: s('amount-fractional'), op: 'refund', rules: ['REF-4'], mutate: at('amount', 10.5), ...bad400('amount'), ...lenient(R.refundBodyNotShown) });
  add({ case: s('amount-string'), op: 'refund', rules: ['REF-4'], mutate: at('amount', 'ten'), ...bad400('amount'), ...lenient(R.refundBodyNotShown) });
  add({ case: s('amount-above-refundable'), op: 'refund', rules: ['REF-4'], mutate: at('amount', REFUND_BASE_PAYMENT_AMOUNT * 1000), expectStatus: 422, expectCode: 'action_not_allowed', expectParam: null });
  add({ case: s('body-not-json'), op: 'refund', rules: ['PAY-4'], mutate: raw('{"amount":'), expectStatus: 400, expectCode: 'invalid_request_body', expectParam: null });
  add({ case: s('idempotency-key-missing'), op: 'refund', rules: ['IDEM-1'], mutate: (b) => b, headers: { 'Idempotency-Key': null }, expectStatus: 400, expectCode: 'parameter_missing', expectParam: null });
}

export const BAD_INPUT_CASES: readonly BadInputCase[] = Object.freeze(cases);
