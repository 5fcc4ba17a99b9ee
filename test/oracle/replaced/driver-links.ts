// DriverLinks as it was before it kept its paths in a paged index (commit 62ddc55): the reference
// test/oracle/driver-links.test.ts compares the current one with. Do not edit.
/**
 * Ties sandbox-driver calls (complete_3ds, submit_hpp) to their payment. A driver that
 * knows the payment records `sent.paymentId`; one that only followed a redirect URL does
 * not, so the payment is found from the URL's path, which every payment that asked for a
 * redirect showed first (next_action.redirect_url, or presentation B's redirect_url).
 * Matching by path, not full URL, also holds when paystorm reached the service through a
 * proxy on another host.
 */
import type { HistoryRecord } from '../../../src/history/index.ts';

export class DriverLinks {
  private readonly byPath = new Map<string, string>();

  private remember(url: string | null | undefined, paymentId: string): void {
    if (!url) return;
    try {
      this.byPath.set(new URL(url, 'http://x').pathname, paymentId);
    } catch {
      /* not a URL: nothing to link */
    }
  }

  /** Learns redirect paths from payments, and fills `sent.paymentId` of driver calls that lack it. */
  observe(rec: HistoryRecord): void {
    if (rec.kind === 'webhook') {
      if (rec.payment) this.remember(rec.payment.nextAction?.redirectUrl ?? rec.payment.redirectUrl, rec.payment.id);
      return;
    }
    if (rec.kind !== 'exchange') return;
    if ((rec.op === 'complete_3ds' || rec.op === 'submit_hpp') && !rec.sent.paymentId && rec.sent.path) {
      const id = this.byPath.get(rec.sent.path);
      if (id) rec.sent.paymentId = id;
    }
    const p = rec.payment;
    if (p) {
      this.remember(p.nextAction?.redirectUrl, p.id);
      this.remember(p.redirectUrl, p.id);
    }
  }
}
