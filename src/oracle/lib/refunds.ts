/** Refund facts the REF invariants share. */
import type { Ledger, RefundRequest } from '../ledger.ts';
import type { OracleContext } from '../types.ts';

/** Whether the key that asked may act on the payment (its creator's merchant and mode); unknown creators are not judged. */
export function sameOwner(ctx: OracleContext, q: RefundRequest): boolean {
  const p = ctx.ledger.payments.get(q.paymentId);
  const k = ctx.keys.get(q.key);
  return !!p && !!k && p.merchant === k.merchant && p.mode === k.mode;
}

export function refundEvidence(message: string, reqs: readonly RefundRequest[], extraSeqs: number[] = []) {
  const rids = reqs.map((r) => r.requestId).filter((x): x is string => !!x);
  return {
    message,
    seqs: [...reqs.map((r) => r.seq), ...extraSeqs],
    times: reqs.map((r) => Math.round(r.tStart * 10) / 10),
    keys: [...new Set(reqs.map((r) => r.key))],
    paymentIds: [...new Set(reqs.map((r) => r.paymentId))],
    ...(rids.length ? { requestIds: rids } : {}),
    idemKeys: reqs.map((r) => r.idemKey).filter((x): x is string => !!x),
  };
}

/** No answer, rate limited, server error, or refused before any lookup. */
export function refundInconclusive(q: RefundRequest): boolean {
  return q.status === 0 || q.status === 429 || q.status >= 500 || q.status === 401 || q.status === 403 || q.status === 409;
}

/**
 * A refund sent without an amount and refused 400 for it: the refund request body is not shown by
 * the spec, so a deployment may require the amount ("refund the rest" when it is left out is
 * paystorm's reading, src/spec/refund.ts). Such a refusal says nothing about REF-1 or REF-5.
 */
export function amountRequiredRefusal(q: RefundRequest): boolean {
  return q.amountSent === undefined && !q.badInput && q.status === 400 && (q.code === 'parameter_invalid' || q.code === 'parameter_missing');
}

/**
 * By refund row (`ledger.refundRows`), the first value `pick` gives among the requests answered
 * with that refund's id, walked as `ledger.refundRequests` gives them; `has[row]` is 1 where one
 * was given. Typed arrays, not a Map by refund key: a soak makes millions of refunds, and such a
 * Map took hundreds of megabytes at the end of a 30M-record judgement (docs/oracle.md, Memory).
 */
export function firstByRefundRow(ledger: Ledger, pick: (q: RefundRequest) => number | undefined): { has: Uint8Array; value: Float64Array } {
  const rows = ledger.refundRows.size;
  const has = new Uint8Array(rows);
  const value = new Float64Array(rows);
  for (const reqs of ledger.refundRequests.values()) {
    for (const q of reqs) {
      const v = pick(q);
      const key = v === undefined ? undefined : ledger.refundKeyOfRequest(q);
      const row = key === undefined ? undefined : ledger.refundRows.find(key);
      if (row === undefined || has[row]) continue;
      has[row] = 1;
      value[row] = v!;
    }
  }
  return { has, value };
}
