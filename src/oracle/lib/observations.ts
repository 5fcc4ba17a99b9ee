/** Records that show a payment in full: an exchange's answer or a webhook's data.payment. */
import type { CanonicalPayment } from '../../spec/index.ts';
import type { ExchangeRecord, HistoryRecord, WebhookRecord } from '../../history/index.ts';

export type PaymentObservation = (ExchangeRecord | WebhookRecord) & { payment: CanonicalPayment };

/** The record itself when it shows a payment (no allocation: this runs for every record in many checks). */
export function observedPayment(rec: HistoryRecord): PaymentObservation | null {
  return (rec.kind === 'exchange' || rec.kind === 'webhook') && rec.payment ? (rec as PaymentObservation) : null;
}
