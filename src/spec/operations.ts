/** Every operation paystorm performs, one name each, used by the client, history and oracle. */
import type { IdempotencyScope } from './limits.ts';

export const OPERATIONS = [
  'create', // POST /v1/payments
  'create_hpp', // POST /v1/payments/hpp
  'retrieve', // GET /v1/payments/{id}
  'list', // GET /v1/payments
  'refund', // POST /v1/payments/{id}/refund
  'refund_create', // POST /v1/refunds
  'complete_3ds', // GET <redirect_url>?result=… (sandbox driver)
  'submit_hpp', // POST <redirect_url> (sandbox driver)
  'raw', // a probe with hand-made headers or body (auth and bad-input scenarios)
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Idempotency scope of each POST operation (IDEM-9): both refund paths share one. */
export const OPERATION_SCOPE: Partial<Record<Operation, IdempotencyScope>> = {
  create: 'payment_create',
  create_hpp: 'hosted_create',
  refund: 'refund_create',
  refund_create: 'refund_create',
};

export const API_PATHS = {
  payments: '/v1/payments',
  hosted: '/v1/payments/hpp',
  payment: (id: string) => `/v1/payments/${encodeURIComponent(id)}`,
  refund: (id: string) => `/v1/payments/${encodeURIComponent(id)}/refund`,
  refunds: '/v1/refunds',
} as const;
