/**
 * Refund request and response bodies. The spec does not show them, so paystorm
 * and the reference service decide them here, once:
 * - `POST /v1/payments/{id}/refund` with `{amount?}` (default: the remaining refundable amount)
 * - `POST /v1/refunds` with `{payment_id, amount?}`
 * Both paths are one operation (`refund_create`) for idempotency.
 * - Response 201 with a Refund: `{id: "re_…", object: "refund", payment_id, amount, status, created}`
 *   (presentation A spells the time `created_at`).
 */
import type { RefundStatus } from './statuses.ts';

export const REFUND_ID_PREFIX = 're_';
export const REFUND_PATHS = {
  paymentScoped: (paymentId: string) => `/v1/payments/${encodeURIComponent(paymentId)}/refund`,
  topLevel: '/v1/refunds',
} as const;

export interface RefundRequestPaymentScoped {
  amount?: number;
}
export interface RefundRequestTopLevel {
  payment_id: string;
  amount?: number;
}

export interface RefundWire {
  id: string;
  object: 'refund';
  payment_id: string;
  amount: number;
  status: RefundStatus;
  created?: number;
  created_at?: number;
}
