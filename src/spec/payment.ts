/**
 * The Payment object in both presentations, read into one canonical model.
 * Presentation A: uppercase statuses, `created_at`, `failure_code`, `amount_refunded`,
 * `amount_refundable`, `integration_type`. Presentation B: `object: "payment"`,
 * lowercase statuses, `created`, `decline_code`, `refunded_amount`, `redirect_url`,
 * `succeeded_at`/`failed_at`/`refunded_at`, `refunds`.
 */
import { type PaymentStatus, statusFromWire, type RefundStatus, REFUND_STATUSES } from './statuses.ts';

export type Presentation = 'A' | 'B';
export const PAYMENT_ID_PREFIX = 'pay_';
export const PAYMENT_ID_B_PATTERN = /^pay_[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/;

export interface CanonicalCard {
  brand: string | null;
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
  country?: string | null;
}

export interface CanonicalRefund {
  id: string;
  paymentId: string;
  /** null when the body has no numeric `amount` (refund fields beyond payment_id and status: not shown). */
  amount: number | null;
  status: RefundStatus;
  created: number | null;
}

export interface CanonicalNextAction {
  type: string;
  reason: string | null;
  redirectUrl: string | null;
}

/** One model for both presentations; a field a presentation lacks is null. */
export interface CanonicalPayment {
  id: string;
  presentation: Presentation;
  status: PaymentStatus;
  /** The status string exactly as sent. */
  wireStatus: string;
  amount: number;
  /** Uppercased (A sends uppercase, B lowercase). */
  currency: string;
  livemode: boolean | null;
  created: number | null;
  hosted: boolean | null;
  nextAction: CanonicalNextAction | null;
  amountRefunded: number | null;
  /** Presentation A only. */
  amountRefundable: number | null;
  card: CanonicalCard | null;
  /** `failure_code` (A) or `decline_code` (B). */
  failureCode: string | null;
  description: string | null;
  metadata: Record<string, string> | null;
  merchantReference: number | null;
  /** Presentation B top-level `redirect_url`. */
  redirectUrl: string | null;
  succeededAt: number | null;
  failedAt: number | null;
  refundedAt: number | null;
  refunds: CanonicalRefund[] | null;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const numOrNull = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Which presentation a Payment body is in, or null when it is not a payment. */
export function detectPresentation(body: unknown): Presentation | null {
  if (!isObj(body) || typeof body.id !== 'string' || typeof body.status !== 'string') return null;
  if (body.object === 'payment') return 'B';
  const s = body.status;
  if (s === s.toUpperCase() && s !== s.toLowerCase()) return 'A';
  if ('created' in body || 'refunded_amount' in body || 'decline_code' in body) return 'B';
  if ('created_at' in body || 'amount_refunded' in body || 'failure_code' in body) return 'A';
  return null;
}

export function normalizeRefund(body: unknown, paymentId?: string): CanonicalRefund | null {
  if (!isObj(body) || typeof body.id !== 'string') return null;
  const status = typeof body.status === 'string' ? body.status.toLowerCase() : '';
  if (!(REFUND_STATUSES as readonly string[]).includes(status)) return null;
  return {
    id: body.id,
    paymentId: strOrNull(body.payment_id) ?? paymentId ?? '',
    amount: typeof body.amount === 'number' && Number.isFinite(body.amount) ? body.amount : null,
    status: status as RefundStatus,
    created: numOrNull(body.created) ?? numOrNull(body.created_at),
  };
}

function normalizeCard(v: unknown): CanonicalCard | null {
  if (!isObj(v)) return null;
  const card: CanonicalCard = {
    brand: strOrNull(v.brand),
    last4: strOrNull(v.last4),
    exp_month: numOrNull(v.exp_month),
    exp_year: numOrNull(v.exp_year),
  };
  if ('country' in v) card.country = strOrNull(v.country);
  return card;
}

/** Reads a Payment in either presentation; null when the body is not a payment. */
export function normalizePayment(body: unknown): CanonicalPayment | null {
  const presentation = detectPresentation(body);
  if (!presentation || !isObj(body)) return null;
  const status = statusFromWire(body.status as string);
  if (!status) return null;
  const na = isObj(body.next_action)
    ? {
        type: String(body.next_action.type ?? ''),
        reason: strOrNull(body.next_action.reason),
        redirectUrl: strOrNull(body.next_action.redirect_url),
      }
    : null;
  const refunds = Array.isArray(body.refunds)
    ? // An entry without its own id is still a refund (fields beyond payment_id and status are not shown): id ''.
      body.refunds.map((r) => normalizeRefund(isObj(r) && typeof r.id !== 'string' ? { ...r, id: '' } : r, body.id as string)).filter((r): r is CanonicalRefund => r !== null)
    : null;
  const metadata = isObj(body.metadata) ? (body.metadata as Record<string, string>) : null;
  const a = presentation === 'A';
  // One literal, no object spread: the client normalizes every response on the load path,
  // and V8 builds a spread-then-extend object of this size on a slow path (~20 µs).
  return {
    id: body.id as string,
    presentation,
    status,
    wireStatus: body.status as string,
    amount: typeof body.amount === 'number' ? body.amount : NaN,
    currency: typeof body.currency === 'string' ? body.currency.toUpperCase() : '',
    livemode: typeof body.livemode === 'boolean' ? body.livemode : null,
    nextAction: na,
    card: normalizeCard(body.card),
    description: strOrNull(body.description),
    metadata,
    merchantReference: numOrNull(body.merchant_reference),
    refunds,
    created: numOrNull(a ? body.created_at : body.created),
    hosted: a
      ? body.integration_type === 'HOSTED_PAYMENT_PAGE'
        ? true
        : typeof body.integration_type === 'string'
          ? false
          : null
      : 'redirect_url' in body
        ? body.redirect_url !== null
        : null,
    amountRefunded: numOrNull(a ? body.amount_refunded : body.refunded_amount),
    amountRefundable: a ? numOrNull(body.amount_refundable) : null,
    failureCode: strOrNull(a ? body.failure_code : body.decline_code),
    redirectUrl: a ? null : strOrNull(body.redirect_url),
    succeededAt: a ? null : numOrNull(body.succeeded_at),
    failedAt: a ? null : numOrNull(body.failed_at),
    refundedAt: numOrNull(body.refunded_at),
  };
}

/** Field-level problems of a Payment body against its own presentation's table. Empty means it conforms. */
export function validatePaymentShape(body: unknown): string[] {
  const problems: string[] = [];
  const p = detectPresentation(body);
  if (!p || !isObj(body)) return ['not a Payment object (needs id and status)'];
  // Checks are module-level functions, not per-call closures: this runs on every response under load.
  need(problems, body, 'id', isPayId, 'a pay_ id');
  need(problems, body, 'amount', isInt, 'an integer');
  need(problems, body, 'currency', isStr, 'a string');
  need(problems, body, 'livemode', isBool, 'a boolean');
  if (p === 'A') {
    need(problems, body, 'status', isUpperStatus, 'an uppercase status');
    need(problems, body, 'created_at', isInt, 'Unix seconds');
    need(problems, body, 'amount_refunded', isInt, 'an integer');
    need(problems, body, 'amount_refundable', isInt, 'an integer');
  } else {
    need(problems, body, 'id', isPayUuid, 'pay_ + UUID');
    need(problems, body, 'object', isPaymentObject, '"payment"');
    need(problems, body, 'status', isLowerStatusB, 'a lowercase status');
    need(problems, body, 'created', isInt, 'Unix seconds');
    need(problems, body, 'refunded_amount', isInt, 'an integer');
    need(problems, body, 'refunds', Array.isArray, 'an array');
    need(problems, body, 'redirect_url', isStrOrNull, 'a string or null');
    need(problems, body, 'succeeded_at', isIntOrNull, 'Unix seconds or null');
    need(problems, body, 'failed_at', isIntOrNull, 'Unix seconds or null');
    need(problems, body, 'refunded_at', isIntOrNull, 'Unix seconds or null');
    need(problems, body, 'decline_code', isStrOrNull, 'a string or null');
  }
  return problems;
}

function need(problems: string[], body: Json, field: string, ok: (v: unknown) => boolean, what: string): void {
  if (!ok(body[field])) problems.push(`${field}: expected ${what}, got ${JSON.stringify(body[field])}`);
}
function isInt(v: unknown): boolean {
  return Number.isInteger(v);
}
function isStr(v: unknown): boolean {
  return typeof v === 'string';
}
function isBool(v: unknown): boolean {
  return typeof v === 'boolean';
}
function isStrOrNull(v: unknown): boolean {
  return v === null || typeof v === 'string';
}
function isIntOrNull(v: unknown): boolean {
  return v === null || Number.isInteger(v);
}
function isPayId(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith(PAYMENT_ID_PREFIX);
}
function isPayUuid(v: unknown): boolean {
  return typeof v === 'string' && PAYMENT_ID_B_PATTERN.test(v);
}
function isPaymentObject(v: unknown): boolean {
  return v === 'payment';
}
function isUpperStatus(v: unknown): boolean {
  return typeof v === 'string' && v === v.toUpperCase() && statusFromWire(v) !== undefined;
}
function isLowerStatusB(v: unknown): boolean {
  return typeof v === 'string' && v === v.toLowerCase() && v !== 'processing' && statusFromWire(v) !== undefined;
}

export interface CanonicalList {
  object: unknown;
  ids: string[];
  hasMore: boolean | null;
  url: unknown;
  /** Payments on the page, normalized. */
  payments: CanonicalPayment[];
}

export function normalizeList(body: unknown): CanonicalList | null {
  if (!isObj(body) || !Array.isArray(body.data)) return null;
  const payments = body.data.map(normalizePayment).filter((x): x is CanonicalPayment => x !== null);
  return {
    object: body.object,
    ids: body.data.map((d) => (isObj(d) && typeof d.id === 'string' ? d.id : '')),
    hasMore: typeof body.has_more === 'boolean' ? body.has_more : null,
    url: body.url,
    payments,
  };
}
