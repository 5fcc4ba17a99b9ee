/**
 * Ties sandbox-driver calls (complete_3ds, submit_hpp) to their payment. A driver that
 * knows the payment records `sent.paymentId`; one that only followed a redirect URL does
 * not, so the payment is found from the URL's path, which every payment that asked for a
 * redirect showed first (next_action.redirect_url, or presentation B's redirect_url).
 * Matching by path, not full URL, also holds when paystorm reached the service through a
 * proxy on another host.
 */
import type { HistoryRecord } from '../../history/index.ts';
import { StringColumn } from './paged-column.ts';
import { PaymentRows } from './payment-rows.ts';

export class DriverLinks {
  /**
   * Each redirect path a row (an index whose old entries wait on disk: lib/payment-rows.ts), and
   * by row the payment that showed it last. A Map from path to id held every redirecting
   * payment's URL and id to the end: most of the judge's growth through a soak of hosted pages.
   */
  private readonly paths = new PaymentRows();
  private readonly ids = new StringColumn();

  private remember(url: string | null | undefined, paymentId: string): void {
    if (!url) return;
    let path: string;
    try {
      path = new URL(url, 'http://x').pathname;
    } catch {
      return; // not a URL: nothing to link
    }
    const row = this.paths.rowOf(path);
    // A payment is seen many times while it waits on its redirect: its row is set once.
    if (!this.ids.equals(row, paymentId)) this.ids.set(row, paymentId);
  }

  /** The payment that showed this redirect path last. */
  private paymentOf(path: string): string | undefined {
    const row = this.paths.find(path);
    return row === undefined ? undefined : this.ids.get(row);
  }

  /** Learns redirect paths from payments, and fills `sent.paymentId` of driver calls that lack it. */
  observe(rec: HistoryRecord): void {
    if (rec.kind === 'webhook') {
      if (rec.payment) this.remember(rec.payment.nextAction?.redirectUrl ?? rec.payment.redirectUrl, rec.payment.id);
      return;
    }
    if (rec.kind !== 'exchange') return;
    if ((rec.op === 'complete_3ds' || rec.op === 'submit_hpp') && !rec.sent.paymentId && rec.sent.path) {
      const id = this.paymentOf(rec.sent.path);
      if (id) rec.sent.paymentId = id;
    }
    const p = rec.payment;
    if (p) {
      this.remember(p.nextAction?.redirectUrl, p.id);
      this.remember(p.redirectUrl, p.id);
    }
  }
}
