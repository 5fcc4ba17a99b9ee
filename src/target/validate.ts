/**
 * Input validation of creates, in the shape the body uses: the fields, which are required and
 * their limits come from the spec's input tables (src/spec/inputs.ts INPUT_TABLES, LIMITS); the
 * first problem found is reported as 400 parameter_invalid with `param` naming the field
 * (nested fields dotted, e.g. `card.cvc`).
 */
import {
  BILLING_ADDRESS_REQUIRED,
  BILLING_DETAILS_OPTIONAL,
  CARD_FIELDS,
  CARD_NUMBER_PATTERN,
  CUSTOMER_B_FIELDS,
  HOSTED_CREATE_FIELDS,
  LIMITS,
  PAYMENT_METHOD_TYPE,
  SHAPE_CARD_FIELD,
  SHAPE_CUSTOMER_FIELD,
  cvcLength,
  inputRow,
  inputShapeOf,
  isIsoCurrency,
  returnUrlAllowed,
  type CardsFile,
  type InputRequired,
  type InputShape,
} from '../spec/index.ts';
import type { BugFlags } from './bugs.ts';
import type { CardSecret } from './model.ts';
import type { ServiceOptions } from './options.ts';

export interface ParsedCreate {
  shape: InputShape;
  amount: number;
  currency: string;
  description: string | null;
  metadata: Record<string, string>;
  merchantReference: number | null;
  returnUrl: string | null;
  card: CardSecret | null;
  customer: { email: string | null; name: string | null };
}

export type Invalid = { ok: false; param: string | null; message: string };

/** Conforming choices of validation (variants, src/target/variants.ts); all off by default. */
export interface ValidateOptions {
  /** Coerce a value of another JSON type that converts without loss (exp_month "12", cvc 123, amount "1000"). */
  lenientTypes?: boolean;
  /** Presentation B: do not require return_url at the create for a 3DS card (enforced when 3DS triggers). */
  returnUrlAt3ds?: boolean;
  /** Read every Direct API body in this input shape (the other shape's fields are ignored). */
  ownShape?: InputShape;
  /** A hosted create without return_url is accepted (the hosted endpoint's body line does not mark it required). */
  hostedReturnUrlOptional?: boolean;
  /**
   * A Direct API create carrying neither shape's card (or neither shape's customer details) is
   * refused naming this shape's field (`card`/`customer` for B, `payment_method_data`/`billing_details` for A).
   */
  dualShapeNames?: InputShape;
}

/** The validation choices of a service's options (its conforming variants). */
export function validationOptions(o: ServiceOptions): ValidateOptions {
  return {
    lenientTypes: o.lenientTypes,
    returnUrlAt3ds: o.returnUrlAt3ds,
    hostedReturnUrlOptional: o.hostedReturnUrlOptional,
    ...(o.ownInputShapeOnly ? { ownShape: o.presentation } : {}),
    ...(o.dualShapeNames ? { dualShapeNames: o.dualShapeNames } : {}),
  };
}

/** lenient-types: a digit string read as the integer it spells (the spec names the type only). */
function lenientInt(v: unknown, lenient: boolean | undefined): unknown {
  return lenient && typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v;
}
export type Validated<T> = { ok: true; value: T } | Invalid;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

class Problem extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

function fail(param: string, message: string): never {
  throw new Problem(param, message);
}

function requireString(o: Json, field: string, param: string, opts: { email?: boolean } = {}): string {
  const v = o[field];
  if (v === undefined || v === null) fail(param, `Missing required parameter: ${param}.`);
  if (typeof v !== 'string' || v.trim() === '') fail(param, `Invalid ${param}: expected a non-empty string.`);
  if (opts.email && !EMAIL.test(v)) fail(param, `Invalid ${param}: expected an email address.`);
  return v;
}

function requireObject(o: Json, field: string, param: string): Json {
  const v = o[field];
  if (v === undefined || v === null) fail(param, `Missing required parameter: ${param}.`);
  if (!isObj(v)) fail(param, `Invalid ${param}: expected an object.`);
  return v;
}

function requireInteger(o: Json, field: string, param: string, min: number, max: number, expected: string): number {
  const v = o[field];
  if (v === undefined || v === null) fail(param, `Missing required parameter: ${param}.`);
  if (!Number.isInteger(v) || (v as number) < min || (v as number) > max) fail(param, `Invalid ${param}: expected ${expected}.`);
  return v as number;
}

/** A card of the input tables (CARD_FIELDS), every field required, checked in the table's order. */
export function parseCard(c: Json, prefix: string, bugs: BugFlags, opts: ValidateOptions = {}): CardSecret {
  if (opts.lenientTypes) {
    c = { ...c, exp_month: lenientInt(c.exp_month, true), exp_year: lenientInt(c.exp_year, true) };
    if (Number.isSafeInteger(c.cvc) && (c.cvc as number) >= 0) c.cvc = String(c.cvc);
  }
  const card = {} as CardSecret;
  const check: { [F in (typeof CARD_FIELDS)[number]]: (param: string) => CardSecret[F] } = {
    number: (param) => {
      const number = requireString(c, 'number', param);
      if (!CARD_NUMBER_PATTERN.test(number)) fail(param, `Invalid ${param}: expected 12 to 19 digits.`);
      return number;
    },
    exp_month: (param) => requireInteger(c, 'exp_month', param, 1, 12, 'an integer from 1 to 12'),
    exp_year: (param) => requireInteger(c, 'exp_year', param, 1000, 9999, 'a four-digit year'),
    cvc: (param) => {
      const cvc = requireString(c, 'cvc', param);
      const need = bugs['test-amex-cvc-rejected'] ? 3 : cvcLength(card.number);
      if (!/^\d+$/.test(cvc) || cvc.length !== need) fail(param, `Invalid ${param}: expected ${need} digits for this card.`);
      return cvc;
    },
    holder_name: (param) => requireString(c, 'holder_name', param),
  };
  for (const f of CARD_FIELDS) (card as Record<typeof f, unknown>)[f] = check[f](`${prefix}.${f}`);
  return card;
}

function parseCommon(body: Json, bugs: BugFlags, opts: ValidateOptions = {}) {
  const amount = lenientInt(body.amount, opts.lenientTypes);
  if (amount === undefined || amount === null) fail('amount', 'Missing required parameter: amount.');
  const minAmount = bugs['pay-zero-amount-accepted'] ? 0 : LIMITS.amountMin;
  if (!Number.isSafeInteger(amount) || (amount as number) < minAmount) fail('amount', `Invalid amount: expected an integer of at least ${LIMITS.amountMin} (minor units).`);
  const currency = body.currency;
  if (currency === undefined || currency === null) fail('currency', 'Missing required parameter: currency.');
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency) || !isIsoCurrency(currency)) fail('currency', 'Invalid currency: expected an ISO 4217 code.');
  const ref = lenientInt(body.merchant_reference, opts.lenientTypes);
  let merchantReference: number | null = null;
  if (ref !== undefined && ref !== null) {
    if (!Number.isInteger(ref) || (ref as number) < LIMITS.merchantReferenceMin || (ref as number) > LIMITS.merchantReferenceMax) {
      fail('merchant_reference', 'Invalid merchant_reference: expected an integer of exactly 10 digits.');
    }
    merchantReference = ref as number;
  }
  return { amount: amount as number, currency: currency.toUpperCase(), merchantReference };
}

function parseDescriptionAndMetadata(body: Json, bugs: BugFlags, direct: boolean): { description: string | null; metadata: Record<string, string> } {
  let description: string | null = null;
  if (body.description !== undefined && body.description !== null) {
    if (typeof body.description !== 'string') fail('description', 'Invalid description: expected a string.');
    // pay-description-off-by-one: >= where > belongs, so exactly 500 characters is refused.
    const over = bugs['pay-description-off-by-one'] ? body.description.length >= LIMITS.descriptionMaxLength : body.description.length > LIMITS.descriptionMaxLength;
    if (direct && !bugs['pay-description-unbounded'] && over) {
      fail('description', `Invalid description: at most ${LIMITS.descriptionMaxLength} characters.`);
    }
    description = body.description;
  }
  const metadata: Record<string, string> = {};
  if (body.metadata !== undefined && body.metadata !== null) {
    if (!isObj(body.metadata)) fail('metadata', 'Invalid metadata: expected an object of string values.');
    const entries = Object.entries(body.metadata);
    if (entries.length > LIMITS.metadataMaxKeys) fail('metadata', `Invalid metadata: at most ${LIMITS.metadataMaxKeys} keys.`);
    for (const [k, v] of entries) {
      if (bugs['pay-metadata-key-40-enforced'] && k.length > 40) fail(`metadata[${k}]`, `Invalid metadata key: at most 40 characters.`);
      if (typeof v !== 'string') fail(`metadata[${k}]`, `Invalid metadata[${k}]: expected a string.`);
      if (v.length > LIMITS.metadataValueMaxLength) fail(`metadata[${k}]`, `Invalid metadata[${k}]: at most ${LIMITS.metadataValueMaxLength} characters.`);
      metadata[k] = v;
    }
  }
  return { description, metadata };
}

/** B requires return_url only when 3DS is triggered: here, when the card is the sandbox 3DS card (the only one the service knows ahead). */
function returnUrlRequired(required: InputRequired, threeDs: boolean): boolean {
  return required === 'yes' || (required === 'when-3ds' && threeDs);
}
const RETURN_URL_REQUIRED_WHY: Record<InputShape, string> = { A: 'required for every payment', B: 'required when 3D Secure is triggered' };

function parseReturnUrl(body: Json, required: boolean, requiredWhy: string): string | null {
  const v = body.return_url;
  if (v === undefined || v === null) {
    if (required) fail('return_url', `Missing required parameter: return_url (${requiredWhy}).`);
    return null;
  }
  if (typeof v !== 'string') fail('return_url', 'Invalid return_url: expected a URL string.');
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    fail('return_url', 'Invalid return_url: expected an absolute URL.');
  }
  if (!returnUrlAllowed(u)) {
    fail('return_url', 'Invalid return_url: must use https, or http://localhost for local development.');
  }
  return v;
}

const present = (v: unknown) => v !== undefined && v !== null;

/**
 * dual-shape variants: a body with neither A's nor B's card (or customer details) lacks both
 * shapes' fields; this names `names`' one (A's card inside a payment_method_data that is there).
 */
function requireEitherShape(body: Json, names: InputShape): void {
  const pmd = body.payment_method_data;
  if (!present(body.card) && !(isObj(pmd) && present(pmd.card))) {
    const param = names === 'A' && isObj(pmd) ? `${SHAPE_CARD_FIELD.A}.card` : SHAPE_CARD_FIELD[names];
    fail(param, `Missing required parameter: ${param} (send the card as ${SHAPE_CARD_FIELD.A}.card or as ${SHAPE_CARD_FIELD.B}).`);
  }
  if (!present(body.customer) && !present(body.billing_details)) {
    const param = SHAPE_CUSTOMER_FIELD[names];
    fail(param, `Missing required parameter: ${param} (send ${SHAPE_CUSTOMER_FIELD.A} or ${SHAPE_CUSTOMER_FIELD.B}).`);
  }
}

function parseBillingDetails(body: Json): { email: string; name: string | null } {
  const b = requireObject(body, 'billing_details', 'billing_details');
  const email = requireString(b, 'email', 'billing_details.email', { email: true });
  const a = requireObject(b, 'address', 'billing_details.address');
  for (const f of BILLING_ADDRESS_REQUIRED) requireString(a, f, `billing_details.address.${f}`);
  for (const f of BILLING_DETAILS_OPTIONAL) {
    if (b[f] !== undefined && b[f] !== null && typeof b[f] !== 'string') fail(`billing_details.${f}`, `Invalid billing_details.${f}: expected a string.`);
  }
  const name = [b.first_name, b.last_name].filter((x) => typeof x === 'string' && x).join(' ');
  return { email, name: name || null };
}

function parseCustomerB(body: Json): { email: string; name: string } {
  const c = requireObject(body, 'customer', 'customer');
  const got = {} as Record<(typeof CUSTOMER_B_FIELDS)[number], string>;
  for (const f of CUSTOMER_B_FIELDS) got[f] = requireString(c, f, `customer.${f}`, { email: f === 'email' });
  return { email: got.email, name: `${got.first_name} ${got.last_name}` };
}

/**
 * `POST /v1/payments` body, in whichever input shape it uses. `cards` lets
 * presentation B require return_url when the card is the sandbox 3DS card.
 */
export function validateDirectCreate(body: Json, bugs: BugFlags, cards: CardsFile, opts: ValidateOptions = {}): Validated<ParsedCreate> {
  const shape = opts.ownShape ?? inputShapeOf(body);
  try {
    const common = parseCommon(body, bugs, opts);
    if (opts.dualShapeNames) requireEitherShape(body, opts.dualShapeNames);
    let card: CardSecret;
    let customer: { email: string | null; name: string | null };
    if (shape === 'A') {
      const pmd = requireObject(body, 'payment_method_data', 'payment_method_data');
      if (pmd.type !== PAYMENT_METHOD_TYPE) fail('payment_method_data.type', `Invalid payment_method_data.type: expected "${PAYMENT_METHOD_TYPE}".`);
      card = parseCard(requireObject(pmd, 'card', 'payment_method_data.card'), 'payment_method_data.card', bugs, opts);
      customer = parseBillingDetails(body);
    } else {
      card = parseCard(requireObject(body, 'card', 'card'), 'card', bugs, opts);
      customer = parseCustomerB(body);
    }
    const dm = parseDescriptionAndMetadata(body, bugs, true);
    const threeDs = !opts.returnUrlAt3ds && cards.three_ds_challenge !== undefined && card.number === cards.three_ds_challenge;
    const returnUrl = parseReturnUrl(body, returnUrlRequired(inputRow(shape, 'return_url')!.required, threeDs), RETURN_URL_REQUIRED_WHY[shape]);
    return { ok: true, value: { shape, ...common, ...dm, returnUrl, card, customer } };
  } catch (e) {
    if (e instanceof Problem) return { ok: false, param: bugs['pay-param-not-named'] && e.message.startsWith('Missing') ? null : e.param, message: e.message };
    throw e;
  }
}

/**
 * `POST /v1/payments/hpp` body: no card data; return_url required (the page
 * redirects there). The spec shows only presentation A's form, with
 * billing_details required; a body carrying `customer` instead is read as B.
 */
export function validateHostedCreate(body: Json, bugs: BugFlags, opts: ValidateOptions = {}): Validated<ParsedCreate> {
  // The hosted body has one form in the spec (billing_details); own-shape-only reads only that.
  const shape: InputShape = !opts.ownShape && 'customer' in body && !('billing_details' in body) ? 'B' : 'A';
  try {
    const common = parseCommon(body, bugs, opts);
    if (body.payment_method_data !== undefined) fail('payment_method_data', 'Invalid payment_method_data: the hosted page collects the card; send no card data.');
    if (body.card !== undefined) fail('card', 'Invalid card: the hosted page collects the card; send no card data.');
    let customer: { email: string | null; name: string | null } = { email: null, name: null };
    if (shape === 'A') customer = parseBillingDetails(body);
    else if (body.customer !== undefined && body.customer !== null) customer = parseCustomerB(body);
    const dm = parseDescriptionAndMetadata(body, bugs, false);
    const required = !opts.hostedReturnUrlOptional && returnUrlRequired(HOSTED_CREATE_FIELDS.return_url.required, false);
    const returnUrl = parseReturnUrl(body, required, 'the hosted page returns the customer there');
    return { ok: true, value: { shape, ...common, ...dm, returnUrl, card: null, customer } };
  } catch (e) {
    if (e instanceof Problem) return { ok: false, param: bugs['pay-param-not-named'] && e.message.startsWith('Missing') ? null : e.param, message: e.message };
    throw e;
  }
}

/** Card expiry: the last day of exp_month/exp_year. */
export function isExpired(card: { exp_month: number; exp_year: number }, now = new Date()): boolean {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() + 1;
  return card.exp_year < y || (card.exp_year === y && card.exp_month < m);
}
