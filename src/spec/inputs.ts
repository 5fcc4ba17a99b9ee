/**
 * Payment-create input, in both presentations of the spec's input tables.
 * Scenarios build a `PaymentInput` and the client writes it in the shape the
 * target speaks: A (`payment_method_data`, `billing_details`) or B (`card`, `customer`).
 */
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

/** Fields of presentation A's input table, and which are required (Direct API). */
export const INPUT_A_REQUIRED = ['amount', 'currency', 'payment_method_data', 'billing_details', 'return_url'] as const;
export const INPUT_A_HOSTED_REQUIRED = ['amount', 'currency', 'billing_details', 'return_url'] as const;
export const BILLING_DETAILS_REQUIRED = ['email', 'address'] as const;
export const BILLING_ADDRESS_REQUIRED = ['line1', 'city', 'postal_code', 'country'] as const;
/** Presentation B: `card` and `customer` required for the Direct API, all sub-fields required. */
export const INPUT_B_REQUIRED = ['amount', 'currency', 'card', 'customer'] as const;
export const CARD_FIELDS = ['number', 'exp_month', 'exp_year', 'cvc', 'holder_name'] as const;
export const CUSTOMER_B_FIELDS = ['email', 'first_name', 'last_name', 'country', 'phone', 'address', 'city', 'zip'] as const;

export type InputShape = 'A' | 'B';

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
