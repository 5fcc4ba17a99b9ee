/** Payments a record shows in full: an exchange's answer or a webhook's data.payment. */
import type { CanonicalPayment, ExchangeRecord, HistoryRecord, WebhookRecord } from '../../spec/index.ts';

export function observedPayment(rec: HistoryRecord): { p: CanonicalPayment; rec: ExchangeRecord | WebhookRecord } | null {
  if (rec.kind === 'exchange' && rec.payment) return { p: rec.payment, rec };
  if (rec.kind === 'webhook' && rec.payment) return { p: rec.payment, rec };
  return null;
}
