import type { Invariant } from '../types.ts';
import { is2xx, isCreate, scopeOf } from '../lib/exchange.ts';
import { Findings } from '../lib/findings.ts';

/** A description carrying a nonce: paystorm's probes put a UUID in it, unique per logical request. */
const NONCE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const hasNonce = (d: string | null | undefined): d is string => typeof d === 'string' && d.length >= 36 && NONCE.test(d);
/** Ids kept per description: two are enough to convict, a few more make the evidence readable. */
const MAX_IDS = 4;

interface Sent {
  /** `key / scope / Idempotency-Key` of the one logical request, or null once a second one used it. */
  logical: string | null;
  seqs: number[];
  key: string;
  idemKey?: string;
  /** Payment ids the creates were answered with. */
  answered: Set<string>;
}

/**
 * IDEM-6 beyond the answers. IDEM-3/5/6 otherwise see only objects returned to the client: a
 * service that creates a payment per request in a same-key race but answers every caller with
 * the first one passes them (a ghost double charge); so does one that makes a new payment per
 * same-body replay (IDEM-3: no new object) but answers with the first. paystorm's race and replay
 * probes send a description with a nonce (a UUID) unique to the logical request, then walk the
 * key's list; any two
 * payments seen anywhere (lists, retrievals, webhooks) carrying a nonce that the client sent under
 * one Idempotency-Key only (one API key, one operation) mean that one request created two
 * objects. A description sent by two logical requests, or without a nonce, is not judged.
 */
const invariant: Invariant = {
  id: 'idem-no-ghost-object',
  title: 'A request sent under one Idempotency-Key leaves one payment, also among payments only lists show',
  rules: ['IDEM-6', 'IDEM-3'],
  create() {
    const f = new Findings();
    const sent = new Map<string, Sent>();
    /** description -> payment ids seen carrying it, and where. */
    const seen = new Map<string, { ids: string[]; seqs: number[]; listed: boolean }>();
    const see = (d: string, id: string, seq: number, listed: boolean) => {
      const s = sent.get(d);
      if (s && s.logical === null) return;
      let o = seen.get(d);
      if (!o) seen.set(d, (o = { ids: [], seqs: [], listed: false }));
      if (listed) o.listed = true;
      if (o.ids.length < MAX_IDS && !o.ids.includes(id)) o.ids.push(id), o.seqs.push(seq);
    };
    return {
      kinds: ['exchange', 'webhook'],
      onRecord(rec) {
        if (rec.kind === 'webhook') {
          if (rec.payment && hasNonce(rec.payment.description)) see(rec.payment.description, rec.payment.id, rec.seq, false);
          return;
        }
        if (rec.kind !== 'exchange') return;
        if (isCreate(rec)) {
          const d = rec.sent.description;
          if (hasNonce(d)) {
            const logical = `${rec.key}\u0000${scopeOf(rec)}\u0000${rec.idemKey ?? `#${rec.seq}`}`;
            let s = sent.get(d);
            if (!s) sent.set(d, (s = { logical, seqs: [], key: rec.key, ...(rec.idemKey !== undefined ? { idemKey: rec.idemKey } : {}), answered: new Set() }));
            else if (s.logical !== logical) {
              s.logical = null;
              seen.delete(d);
            }
            if (s.logical !== null) {
              if (s.seqs.length < MAX_IDS) s.seqs.push(rec.seq);
              if (rec.payment && is2xx(rec.status)) s.answered.add(rec.payment.id);
            }
          }
        }
        if (rec.payment && hasNonce(rec.payment.description)) see(rec.payment.description, rec.payment.id, rec.seq, false);
        const descs = rec.list?.descriptions;
        if (rec.list && descs && is2xx(rec.status)) {
          for (let i = 0; i < descs.length; i++) if (hasNonce(descs[i])) see(descs[i]!, rec.list.ids[i], rec.seq, true);
        }
      },
      finish() {
        for (const [d, o] of seen) {
          const s = sent.get(d);
          if (!s || s.logical === null) continue;
          // The payments the request was answered with are its own, whatever their bodies showed.
          const ids = [...new Set([...s.answered, ...o.ids])];
          if (o.listed || ids.length > 1) f.check();
          if (ids.length < 2) continue;
          const answered = [...s.answered];
          const ghosts = ids.filter((id) => !s.answered.has(id));
          f.violation({
            message:
              `one request (Idempotency-Key ${s.idemKey ?? '(none)'}, key ${s.key}) left ${ids.length}${o.ids.length >= MAX_IDS ? '+' : ''} payments carrying its description "${d.slice(0, 80)}": ` +
              `${ids.join(', ')}; the client was answered with ${answered.length ? answered.join(', ') : 'none of them'}` +
              (ghosts.length ? `, so ${ghosts.join(', ')} ${ghosts.length === 1 ? 'is a payment' : 'are payments'} no answer showed (a ghost double charge)` : ''),
            seqs: [...s.seqs, ...o.seqs],
            keys: [s.key],
            ...(s.idemKey !== undefined ? { idemKeys: [s.idemKey] } : {}),
            paymentIds: ids,
          });
        }
        return f.outcome('no payment made by a request with a nonce in its description (the idempotency races) was seen again in a list, a retrieval or a webhook');
      },
    };
  },
};
export default invariant;
