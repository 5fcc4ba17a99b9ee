import type { Invariant } from '../types.ts';
import { is2xx } from '../lib/exchange.ts';
import { Findings, evidence, evidenceRec, show, type EvidenceSource } from '../lib/findings.ts';
import { observedPayment } from '../lib/observations.ts';
import { Float64Column, Uint8Column } from '../lib/paged-column.ts';
import { EarliestByPayment } from '../lib/payment-times.ts';

/** What `flags` holds of a payment, as bits. */
const HOSTED_B = 1;
const CARD_SEEN = 2;

/**
 * PAY-12: a hosted create answers 201, REQUIRES_ACTION, integration_type HOSTED_PAYMENT_PAGE
 * (A) and next_action {redirect, hosted_payment_page, redirect_url}; presentation B's
 * next_action has no reason field, so a null reason is accepted there. B: `card` stays null
 * until the page is completed (no observation that ended before the form was submitted shows a card).
 */
const invariant: Invariant = {
  id: 'hosted-create-shape',
  title: 'A hosted create returns 201 REQUIRES_ACTION with a hosted_payment_page redirect; B: card null until the page is completed',
  rules: ['PAY-12'],
  create(ctx) {
    const f = new Findings();
    const rows = ctx.ledger.paymentRows;
    // What it knows of each payment, by the payment's row (paged columns: a soak's old hosted
    // payments wait on disk, where Sets and Maps by id grew with every one).
    const flags = new Uint8Column();
    /** When (in `cardsSeen`) a hosted B payment was first seen with a card (CARD_SEEN): the order violations are named in. */
    const firstCardAt = new Float64Column();
    let cardsSeen = 0;
    /** The earliest start of a submit of each payment's form. */
    const submitted = new EarliestByPayment(rows);
    /**
     * Earliest-ending observation showing a card of each hosted B payment that may still be a
     * violation: its form was not submitted yet, or the observation ended before the submit
     * started. One that ended after a submit started can never be one (submits only make that
     * start earlier), so a payment polled after its form keeps nothing; what stays is a payment in
     * flight or a violation.
     */
    const suspects = new Map<string, { tEnd: number; at: number; rec: EvidenceSource }>();
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange' && rec.op === 'submit_hpp' && rec.sent.paymentId) {
          const id = rec.sent.paymentId;
          submitted.note(id, rec.tStart);
          const s = suspects.get(id);
          if (s && s.tEnd >= rec.tStart) suspects.delete(id);
        }
        if (rec.kind === 'exchange' && rec.op === 'create_hpp' && is2xx(rec.status)) {
          f.check();
          const p = rec.payment;
          const problems: string[] = [];
          if (rec.status !== 201) problems.push(`status ${rec.status}`);
          if (!p) problems.push('no Payment in the body');
          else {
            if (p.status !== 'requires_action') problems.push(`payment status ${p.wireStatus}`);
            if (p.presentation === 'A' && p.hosted !== true) problems.push('integration_type is not HOSTED_PAYMENT_PAGE');
            const na = p.nextAction;
            const reasonOk = na?.reason === 'hosted_payment_page' || (p.presentation === 'B' && !na?.reason);
            if (!na || na.type !== 'redirect' || !na.redirectUrl || !reasonOk) problems.push(`next_action ${show(na)}`);
            if (p.presentation === 'B') {
              // The ledger gave the payment its row when it read this answer.
              const row = rows.rowOf(p.id);
              flags.set(row, flags.get(row) | HOSTED_B);
              if (p.card !== null) problems.push('card is set before the page was completed');
            }
          }
          if (problems.length) f.violation(evidence(`hosted create answered: ${problems.join('; ')}`, [rec]));
          return;
        }
        const o = observedPayment(rec);
        if (!o || o.payment.card === null) return;
        const row = rows.find(o.payment.id);
        if (row === undefined) return;
        const fl = flags.get(row);
        if (!(fl & HOSTED_B)) return;
        if (!(fl & CARD_SEEN)) {
          firstCardAt.set(row, cardsSeen++);
          flags.set(row, fl | CARD_SEEN);
        }
        const id = o.payment.id;
        const end = o.kind === 'exchange' ? o.tEnd : o.tReceived;
        const sub = submitted.get(id);
        if (sub !== undefined && end >= sub) return;
        const prev = suspects.get(id);
        if (!prev || end < prev.tEnd) suspects.set(id, { tEnd: end, at: firstCardAt.get(row), rec: evidenceRec(o) });
      },
      finish() {
        // In the order the payments were first seen with a card.
        for (const [id, seen] of [...suspects].sort((a, b) => a[1].at - b[1].at)) {
          const sub = submitted.get(id);
          if (sub === undefined || seen.tEnd < sub) {
            f.violation(evidence(`hosted payment ${id} showed a card before its page was completed` + (sub === undefined ? ' (the form was never submitted)' : ''), [seen.rec]));
          }
        }
        return f.outcome('no hosted payment page create was answered 2xx');
      },
    };
  },
};
export default invariant;
