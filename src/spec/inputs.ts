/**
 * Payment-create input, in both presentations of the spec's input tables.
 * Scenarios build a `PaymentInput` and the client writes it in the shape the
 * target speaks: A (`payment_method_data`, `billing_details`) or B (`card`, `customer`).
 *
 * The input tables themselves (INPUT_TABLES and the sub-field lists) are here once: the
 * reference service's validator (src/target/validate.ts) and the bad-input catalog
 * (bad-inputs.ts) derive from them, and test/spec checks them against the spec text.
 */
import { LIMITS } from './limits.ts';
import { LIST_STATUS_FILTER } from './statuses.ts';

export interface CardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
  holder_name: string;
}

export interface PaymentInput {
  amount: number;
  currency: string;
  card?: CardInput;
  email?: string;
  firstName?: string;
  lastName?: string;
  country?: string;
  phone?: string;
  line1?: string;
  city?: string;
  zip?: string;
  description?: string;
  metadata?: Record<string, string>;
  merchantReference?: number;
  returnUrl?: string;
}

export type InputShape = 'A' | 'B';

// ---------------------------------------------------------------- the input tables

/** The Required column: always, for the Direct API only (not the hosted page), when 3DS is triggered, or never. */
export type InputRequired = 'yes' | 'direct' | 'when-3ds' | 'no';

/** One row of an input table: its type, when it is required, and the constraint its Rules column states. */
export interface InputRow {
  type: 'integer' | 'string' | 'object';
  required: InputRequired;
  /** At least this (amount). */
  min?: number;
  /** ISO 4217 (currency). */
  iso4217?: true;
  /** Exactly this many digits (merchant_reference). */
  digits?: number;
  /** At most this many characters (description). */
  maxLength?: number;
  /** metadata: at most this many keys, values at most this long. */
  maxKeys?: number;
  valueMaxLength?: number;
  /** return_url: https, or http://localhost (returnUrlAllowed). */
  httpsOrLocalhost?: true;
  /** An object whose sub-fields the row states required (B's card and customer). */
  subFieldsRequired?: true;
}

/**
 * The spec's input tables ("Input objects for payment creation"), row by row. A constraint a
 * table does not state for its shape (A: metadata, the https rule; B: merchant_reference) is
 * absent here even where the Limits section or another table states it.
 */
export const INPUT_TABLES = {
  A: {
    amount: { type: 'integer', required: 'yes' },
    currency: { type: 'string', required: 'yes', iso4217: true },
    merchant_reference: { type: 'integer', required: 'no', digits: 10 },
    payment_method_data: { type: 'object', required: 'direct' },
    billing_details: { type: 'object', required: 'yes' },
    description: { type: 'string', required: 'no' },
    return_url: { type: 'string', required: 'yes' },
  },
  B: {
    amount: { type: 'integer', required: 'yes', min: LIMITS.amountMin },
    currency: { type: 'string', required: 'yes', iso4217: true },
    card: { type: 'object', required: 'direct', subFieldsRequired: true },
    customer: { type: 'object', required: 'direct', subFieldsRequired: true },
    description: { type: 'string', required: 'no', maxLength: LIMITS.descriptionMaxLength },
    metadata: { type: 'object', required: 'no', maxKeys: LIMITS.metadataMaxKeys, valueMaxLength: LIMITS.metadataValueMaxLength },
    return_url: { type: 'string', required: 'when-3ds', httpsOrLocalhost: true },
  },
} as const satisfies Record<InputShape, Readonly<Record<string, InputRow>>>;

/** The row of `field` in a shape's table, or undefined when that table has no such row. */
export function inputRow(shape: InputShape, field: string): InputRow | undefined {
  return (INPUT_TABLES[shape] as Readonly<Record<string, InputRow>>)[field];
}

/**
 * The field of each input shape that carries the card, and the one that carries the customer's
 * details: a deployment reading both shapes finds neither in a body that lacks both.
 */
export const SHAPE_CARD_FIELD = { A: 'payment_method_data', B: 'card' } as const satisfies Record<InputShape, string>;
export const SHAPE_CUSTOMER_FIELD = { A: 'billing_details', B: 'customer' } as const satisfies Record<InputShape, string>;

/** The card: A's `payment_method_data.card`, B's `card`. */
export const CARD_FIELDS = ['number', 'exp_month', 'exp_year', 'cvc', 'holder_name'] as const;
/** A's `payment_method_data.type`. */
export const PAYMENT_METHOD_TYPE = 'card';
/** A's `billing_details`: the minimum, its address, and the optional names. */
export const BILLING_DETAILS_REQUIRED = ['email', 'address'] as const;
export const BILLING_ADDRESS_REQUIRED = ['line1', 'city', 'postal_code', 'country'] as const;
export const BILLING_DETAILS_OPTIONAL = ['first_name', 'last_name'] as const;
/** B's `customer`, every sub-field required. */
export const CUSTOMER_B_FIELDS = ['email', 'first_name', 'last_name', 'country', 'phone', 'address', 'city', 'zip'] as const;

/** The hosted-page create body (one form in the spec, A's fields without card data). */
export const HOSTED_CREATE_FIELDS = {
  amount: INPUT_TABLES.A.amount,
  currency: INPUT_TABLES.A.currency,
  merchant_reference: INPUT_TABLES.A.merchant_reference,
  billing_details: INPUT_TABLES.A.billing_details,
  description: INPUT_TABLES.A.description,
  return_url: INPUT_TABLES.A.return_url,
} as const satisfies Readonly<Record<string, InputRow>>;

/** The query parameters of `GET /v1/payments` (the spec's list table), with their rules. */
export const LIST_PARAMS = {
  limit: { type: 'integer', min: LIMITS.pageLimitMin, max: LIMITS.pageLimitMax, default: LIMITS.pageLimitDefault },
  starting_after: { type: 'string' },
  status: { type: 'enum', values: LIST_STATUS_FILTER },
  'created[gte]': { type: 'integer (int64)' },
  'created[lt]': { type: 'integer (int64)' },
} as const;

/** B's return_url rule: https, or http://localhost for local development. */
export function returnUrlAllowed(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && url.hostname === 'localhost');
}

const defaults = {
  email: 'storm@example.com',
  firstName: 'Pay',
  lastName: 'Storm',
  country: 'DE',
  phone: '+4930123456',
  line1: '1 Test Street',
  city: 'Berlin',
  zip: '10115',
};

/** The Direct API create body in the given shape. */
export function directCreateBody(input: PaymentInput, shape: InputShape): Record<string, unknown> {
  const d = { ...defaults, ...stripUndefined(input) };
  if (shape === 'A') {
    return stripUndefined({
      amount: input.amount,
      currency: input.currency,
      merchant_reference: input.merchantReference,
      payment_method_data: input.card ? { type: 'card', card: input.card } : undefined,
      billing_details: {
        email: d.email,
        first_name: d.firstName,
        last_name: d.lastName,
        address: { line1: d.line1, city: d.city, postal_code: d.zip, country: d.country },
      },
      description: input.description,
      metadata: input.metadata,
      return_url: input.returnUrl,
    });
  }
  return stripUndefined({
    amount: input.amount,
    currency: input.currency,
    card: input.card,
    customer: {
      email: d.email,
      first_name: d.firstName,
      last_name: d.lastName,
      country: d.country,
      phone: d.phone,
      address: d.line1,
      city: d.city,
      zip: d.zip,
    },
    description: input.description,
    metadata: input.metadata,
    merchant_reference: input.merchantReference,
    return_url: input.returnUrl,
  });
}

/** The hosted-page create body (the spec shows only presentation A's form for it). */
export function hostedCreateBody(input: PaymentInput): Record<string, unknown> {
  const d = { ...defaults, ...stripUndefined(input) };
  return stripUndefined({
    amount: input.amount,
    currency: input.currency,
    merchant_reference: input.merchantReference,
    billing_details: {
      email: d.email,
      first_name: d.firstName,
      last_name: d.lastName,
      address: { line1: d.line1, city: d.city, postal_code: d.zip, country: d.country },
    },
    description: input.description,
    metadata: input.metadata,
    return_url: input.returnUrl,
  });
}

/** Which input shape a create body uses; a body with neither marker is read as B. */
export function inputShapeOf(body: Record<string, unknown>): InputShape {
  return 'payment_method_data' in body || 'billing_details' in body ? 'A' : 'B';
}

function stripUndefined<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}
