/**
 * Input validation of creates, in the shape the body uses (src/spec/inputs.ts):
 * the first problem found is reported as 400 parameter_invalid with `param`
 * naming the field (nested fields dotted, e.g. `card.cvc`).
 */
import { type CardsFile, type InputShape, LIMITS, inputShapeOf, isIsoCurrency, cvcLength } from '../spec/index.ts';
import type { BugFlags } from './bugs.ts';
import type { CardSecret } from './model.ts';

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

/** A card of the input tables: number, exp_month, exp_year, cvc, holder_name, all required. */
export function parseCard(c: Json, prefix: string, bugs: BugFlags, opts: ValidateOptions = {}): CardSecret {
  if (opts.lenientTypes) {
    c = { ...c, exp_month: lenientInt(c.exp_month, true), exp_year: lenientInt(c.exp_year, true) };
    if (Number.isSafeInteger(c.cvc) && (c.cvc as number) >= 0) c.cvc = String(c.cvc);
  }
  const number = requireString(c, 'number', `${prefix}.number`);
  if (!/^\d{12,19}$/.test(number)) fail(`${prefix}.number`, `Invalid ${prefix}.number: expected 12 to 19 digits.`);
  const expMonth = c.exp_month;
  if (expMonth === undefined || expMonth === null) fail(`${prefix}.exp_month`, `Missing required parameter: ${prefix}.exp_month.`);
  if (!Number.isInteger(expMonth) || (expMonth as number) < 1 || (expMonth as number) > 12) fail(`${prefix}.exp_month`, `Invalid ${prefix}.exp_month: expected an integer from 1 to 12.`);
  const expYear = c.exp_year;
  if (expYear === undefined || expYear === null) fail(`${prefix}.exp_year`, `Missing required parameter: ${prefix}.exp_year.`);
  if (!Number.isInteger(expYear) || (expYear as number) < 1000 || (expYear as number) > 9999) fail(`${prefix}.exp_year`, `Invalid ${prefix}.exp_year: expected a four-digit year.`);
  const cvc = requireString(c, 'cvc', `${prefix}.cvc`);
  const need = bugs['test-amex-cvc-rejected'] ? 3 : cvcLength(number);
  if (!/^\d+$/.test(cvc) || cvc.length !== need) fail(`${prefix}.cvc`, `Invalid ${prefix}.cvc: expected ${need} digits for this card.`);
  const holder = requireString(c, 'holder_name', `${prefix}.holder_name`);
  return { number, exp_month: expMonth as number, exp_year: expYear as number, cvc, holder_name: holder };
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
    if (direct && !bugs['pay-description-unbounded'] && body.description.length > LIMITS.descriptionMaxLength) {
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
      if (typeof v !== 'string') fail(`metadata[${k}]`, `Invalid metadata[${k}]: expected a string.`);
      if (v.length > LIMITS.metadataValueMaxLength) fail(`metadata[${k}]`, `Invalid metadata[${k}]: at most ${LIMITS.metadataValueMaxLength} characters.`);
      metadata[k] = v;
    }
  }
  return { description, metadata };
}

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
  if (!(u.protocol === 'https:' || (u.protocol === 'http:' && u.hostname === 'localhost'))) {
    fail('return_url', 'Invalid return_url: must use https, or http://localhost for local development.');
  }
  return v;
}

function parseBillingDetails(body: Json): { email: string; name: string | null } {
  const b = requireObject(body, 'billing_details', 'billing_details');
  const email = requireString(b, 'email', 'billing_details.email', { email: true });
  const a = requireObject(b, 'address', 'billing_details.address');
  for (const f of ['line1', 'city', 'postal_code', 'country']) requireString(a, f, `billing_details.address.${f}`);
  for (const f of ['first_name', 'last_name']) {
    if (b[f] !== undefined && b[f] !== null && typeof b[f] !== 'string') fail(`billing_details.${f}`, `Invalid billing_details.${f}: expected a string.`);
  }
  const name = [b.first_name, b.last_name].filter((x) => typeof x === 'string' && x).join(' ');
  return { email, name: name || null };
}

function parseCustomerB(body: Json): { email: string; name: string } {
  const c = requireObject(body, 'customer', 'customer');
  const email = requireString(c, 'email', 'customer.email', { email: true });
  const rest: Record<string, string> = {};
  for (const f of ['first_name', 'last_name', 'country', 'phone', 'address', 'city', 'zip']) rest[f] = requireString(c, f, `customer.${f}`);
  return { email, name: `${rest.first_name} ${rest.last_name}` };
}

/**
 * `POST /v1/payments` body, in whichever input shape it uses. `cards` lets
 * presentation B require return_url when the card is the sandbox 3DS card.
 */
export function validateDirectCreate(body: Json, bugs: BugFlags, cards: CardsFile, opts: ValidateOptions = {}): Validated<ParsedCreate> {
  const shape = opts.ownShape ?? inputShapeOf(body);
  try {
    const common = parseCommon(body, bugs, opts);
    let card: CardSecret;
    let customer: { email: string | null; name: string | null };
    if (shape === 'A') {
      const pmd = requireObject(body, 'payment_method_data', 'payment_method_data');
      if (pmd.type !== 'card') fail('payment_method_data.type', 'Invalid payment_method_data.type: expected "card".');
      card = parseCard(requireObject(pmd, 'card', 'payment_method_data.card'), 'payment_method_data.card', bugs, opts);
      customer = parseBillingDetails(body);
    } else {
      card = parseCard(requireObject(body, 'card', 'card'), 'card', bugs, opts);
      customer = parseCustomerB(body);
    }
    const dm = parseDescriptionAndMetadata(body, bugs, true);
    const threeDs = !opts.returnUrlAt3ds && cards.three_ds_challenge !== undefined && card.number === cards.three_ds_challenge;
    const returnUrl = parseReturnUrl(body, shape === 'A' || threeDs, shape === 'A' ? 'required for every payment' : 'required when 3D Secure is triggered');
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
    const returnUrl = parseReturnUrl(body, true, 'the hosted page returns the customer there');
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
