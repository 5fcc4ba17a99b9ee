/**
 * Reads a webhook body against the spec's event envelope (WH-3): `id` (`evt_`),
 * `type` (one of the six), `created_at` (Unix seconds), `livemode` (boolean) and
 * `data.payment` for payment events or `data.refund` with `payment_id` for refund events.
 */
import {
  EVENT_ID_PREFIX,
  EVENT_TYPES,
  normalizePayment,
  normalizeRefund,
  type CanonicalPayment,
  type CanonicalRefund,
} from '../spec/index.ts';

export interface EnvelopeReading {
  /** The `id` when it is a string, even a malformed one: retries are matched by it. */
  eventId: string | null;
  type: string | null;
  createdAt: unknown;
  livemode: unknown;
  payment: CanonicalPayment | null;
  refund: CanonicalRefund | null;
  problems: string[];
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));

export function readEnvelope(body: unknown): EnvelopeReading {
  const out: EnvelopeReading = { eventId: null, type: null, createdAt: undefined, livemode: undefined, payment: null, refund: null, problems: [] };
  if (!isObj(body)) {
    out.problems.push(`body: expected a JSON object, got ${Array.isArray(body) ? 'an array' : show(body)}`);
    return out;
  }
  const p = out.problems;
  if (typeof body.id === 'string') out.eventId = body.id;
  if (typeof body.id !== 'string' || !body.id.startsWith(EVENT_ID_PREFIX)) p.push(`id: expected a string starting ${EVENT_ID_PREFIX}, got ${show(body.id)}`);

  if (typeof body.type === 'string') out.type = body.type;
  const known = (EVENT_TYPES as readonly string[]).includes(out.type ?? '');
  if (!known) p.push(`type: expected one of ${EVENT_TYPES.join(', ')}, got ${show(body.type)}`);

  out.createdAt = body.created_at;
  if (!Number.isInteger(body.created_at)) p.push(`created_at: expected Unix seconds (an integer), got ${show(body.created_at)}`);
  out.livemode = body.livemode;
  if (typeof body.livemode !== 'boolean') p.push(`livemode: expected a boolean, got ${show(body.livemode)}`);

  if (!isObj(body.data)) {
    p.push(`data: expected an object, got ${show(body.data)}`);
    return out;
  }
  const data = body.data;
  // Read whatever is there, so evidence survives a wrong type; then check what the type needs.
  if (data.payment !== undefined) out.payment = normalizePayment(data.payment);
  if (isObj(data.refund)) out.refund = readRefund(data.refund, out.type);
  if (known && out.type!.startsWith('payment.')) {
    if (data.payment === undefined) p.push('data.payment: missing for a payment event');
    else if (!out.payment) p.push(`data.payment: not a Payment object (needs id and a known status), got ${show(data.payment).slice(0, 200)}`);
  }
  if (known && out.type!.startsWith('refund.')) {
    if (!isObj(data.refund)) p.push(`data.refund: expected an object for a refund event, got ${show(data.refund)}`);
    else if (typeof data.refund.payment_id !== 'string' || data.refund.payment_id === '') p.push(`data.refund.payment_id: expected the payment's id, got ${show(data.refund.payment_id)}`);
  }
  return out;
}

/**
 * The spec shows only `payment_id` of a refund payload. A refund without its own id or
 * status still yields a record (WH-5 needs the payment id): the status is then the one
 * the event type names, a missing id is left empty ('') and a missing amount null.
 */
function readRefund(r: Json, type: string | null): CanonicalRefund | null {
  const paymentId = typeof r.payment_id === 'string' ? r.payment_id : undefined;
  const full = normalizeRefund(r, paymentId);
  if (full || paymentId === undefined) return full;
  const fromType = type === 'refund.succeeded' ? 'succeeded' : type === 'refund.failed' ? 'failed' : null;
  if (!fromType) return null;
  return normalizeRefund({ ...r, id: typeof r.id === 'string' ? r.id : '', status: fromType }, paymentId);
}
