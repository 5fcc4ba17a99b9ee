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

/**
 * Which refund path is authoritative is not shown, and a deployment may serve only one. The
 * scenarios find out once per run: a refund of a payment that exists on each path, then a GET of
 * it. These exchanges carry this group; a path that answered 404 or 405 (and nothing else) for a
 * payment of the asking key is not served, and refunds are judged on served paths alone.
 */
export const REFUND_PATH_DISCOVERY_GROUP = 'refund-path-discovery';
export type RefundPath = 'payment' | 'refunds';
/** Answers that say "this path is not served" (no route, or the route refuses POST). */
export const REFUND_PATH_NOT_SERVED_STATUSES: readonly number[] = [404, 405];
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
