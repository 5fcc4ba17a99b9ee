/** Webhook events (spec "Events"). */
import type { PaymentStatus, RefundStatus } from './statuses.ts';

export const EVENT_TYPES = [
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'payment.expired',
  'refund.succeeded',
  'refund.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The payment status each payment event fires for (WH-4, WH-7). */
export const PAYMENT_EVENT_FOR_STATUS: Partial<Record<PaymentStatus, EventType>> = {
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
  expired: 'payment.expired',
};
export const REFUND_EVENT_FOR_STATUS: Partial<Record<RefundStatus, EventType>> = {
  succeeded: 'refund.succeeded',
  failed: 'refund.failed',
};
export function statusOfEvent(type: EventType): PaymentStatus | RefundStatus {
  return type.split('.')[1] as PaymentStatus | RefundStatus;
}

export const EVENT_ID_PREFIX = 'evt_';
/**
 * A neutral name for the service's own signature header (spec: "Header `Service-Signature` (a
 * neutral name for the service's own signature header)"): a real service names it after itself
 * (`Acme-Signature`). The receiver reads this name, or the one given (`--webhook-signature-header`),
 * or by default any header whose name ends in SIGNATURE_HEADER_SUFFIX and whose value has the
 * signature's form `t=<unix>,v1=<hex>`.
 */
export const SIGNATURE_HEADER = 'service-signature';
export const SIGNATURE_HEADER_SUFFIX = '-signature';
/** A header name as HTTP allows it (a token), for `--webhook-signature-header`. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
export const SIGNING_SECRET_PREFIX = 'whsec_';

export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: number;
  livemode: boolean;
  data: { payment?: unknown; refund?: unknown };
}
