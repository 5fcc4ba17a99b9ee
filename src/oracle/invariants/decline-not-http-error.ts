import { OPERATION_SCOPE, type Evidence, type IdempotencyScope } from '../../spec/index.ts';
import type { ExchangeRecord, FaultRecord } from '../../history/index.ts';
import type { Invariant } from '../types.ts';
import { errorCode, errorType, is2xx, isCreate, isInconclusive } from '../lib/exchange.ts';
import { SpillColumns } from '../lib/spill.ts';
import { faultOverlapping } from '../lib/faults.ts';
import { Findings, evidence, show, type KeptExchange } from '../lib/findings.ts';
import { EvidenceTable } from '../lib/evidence-table.ts';
import { Float64Column, Uint32Column, Uint8Column, ValueCodes } from '../lib/paged-column.ts';

/** The scope of a Direct API create (`op` create), under which the ledger keeps its Idempotency-Keys. */
const CREATE_SCOPE: IdempotencyScope = OPERATION_SCOPE.create!;

const DECLINE_CARDS = new Set(['do_not_honor', 'insufficient_funds']);

/**
 * The test-mode creates with a decline card answered 5xx (the first under its Idempotency-Key):
 * what the end needs of each, and its evidence (every such create outside faults goes into the one
 * example). Columns, not an object each: under overload a declining card's creates are answered
 * 503 as often as any, and an object each grew the heap by about a kilobyte a payment.
 */
class Declined5xx {
  readonly recs = new EvidenceTable();
  private readonly statuses = new Float64Column();
  private readonly codes = new Uint32Column();
  private readonly codeValues = new ValueCodes<string>();

  push(rec: ExchangeRecord): void {
    const i = this.recs.push(rec);
    this.statuses.set(i, rec.status);
    this.codes.set(i, this.codeValues.codeOf(errorCode(rec) ?? undefined));
  }

  get length(): number {
    return this.recs.length;
  }

  status(i: number): number {
    return this.statuses.get(i);
  }

  code(i: number): string | null {
    return this.codeValues.valueOf(this.codes.get(i)) ?? null;
  }
}

/** How many rows of a span table overlap no fault window. */
function calmRows(spans: SpillColumns<'tStart' | 'tEnd'>, faults: readonly FaultRecord[]): number {
  let calm = 0;
  for (const { cols, n } of spans.chunks()) {
    const [ts, te] = cols;
    for (let i = 0; i < n; i++) if (!faultOverlapping(faults, ts[i], te[i])) calm++;
  }
  return calm;
}

/** The evidence of several records, each taken with evidence('', [rec]): what evidence(message, recs) would give. */
function joinEvidence(message: string, parts: readonly Evidence[]): Evidence {
  const all = (k: 'requestIds' | 'times' | 'seqs' | 'keys' | 'idemKeys' | 'paymentIds' | 'bodies') => parts.flatMap((e) => (e[k] ?? []) as (string | number)[]);
  return evidence(message, [], {
    requestIds: all('requestIds') as string[],
    seqs: all('seqs') as number[],
    times: all('times') as number[],
    keys: all('keys') as string[],
    idemKeys: all('idemKeys') as string[],
    paymentIds: all('paymentIds') as string[],
    bodies: all('bodies') as string[],
  });
}

/**
 * PAY-7: a decline is not an HTTP error. A declining card gets 201 (and the payment later
 * fails), or a synchronous 422 card_error card_declined with a decline_code. Any 422
 * card_error on a create has code card_declined.
 *
 * One 5xx is inconclusive (the spec makes 500 retryable), but a pattern is not: when at least
 * three test-mode creates with a decline card, and at least half of those answered outside
 * faults, were answered 5xx (a 5xx followed by another answer under its Idempotency-Key counts
 * as decided, not as a 5xx), while the other
 * test-mode creates outside faults were answered 2xx (at least two, at most a tenth of them
 * 5xx), the decline itself is answered as a server error (a decline raised as an exception
 * nothing maps; one whose processor answer comes late may still get 201).
 */
const invariant: Invariant = {
  id: 'decline-not-http-error',
  title: 'A decline is 201 and later failed, or a synchronous 422 card_error card_declined with a decline_code',
  rules: ['PAY-7'],
  create(ctx) {
    const f = new Findings();
    /** A decline card declines on the sandbox (test keys); how a live key refuses test cards is AUTH-7's, in no set form. */
    const testMode = (key: string) => ctx.keys.get(key)?.mode === 'test';
    /** Test-mode creates with a decline card answered 5xx, first record per Idempotency-Key (rare: a few fields and the evidence each). */
    const declined5xx = new Declined5xx();
    /**
     * By the ledger's row of an idempotent request: 1 for a create recorded in `declined5xx`, so a
     * later one under its key and Idempotency-Key is not (the ledger's tuple names them; a byte a
     * request on paged columns, not a Set of key strings).
     */
    const declinedRows = new Uint8Column();
    /**
     * Spans of test-mode decline-card creates answered with a decision (2xx or 4xx), and of the
     * other test-mode creates answered 2xx or 5xx: all that is judged of them is how many fall
     * outside every fault window, known only at the end, so two numbers a row, kept on disk
     * (lib/spill.ts).
     */
    const declinedDecided = new SpillColumns(['tStart', 'tEnd'] as const);
    const othersOk = new SpillColumns(['tStart', 'tEnd'] as const);
    const others5xx = new SpillColumns(['tStart', 'tEnd'] as const);
    const judgeServerErrors = () => {
      const faults = ctx.ledger.faults;
      const answeredOtherwise = (r5: KeptExchange) => {
        const reqs = r5.idemKey !== undefined ? ctx.ledger.idemRequests(r5.key, CREATE_SCOPE, r5.idemKey) : undefined;
        return (reqs ?? []).some((r) => r.seq !== r5.seq && r.status > 0 && r.status < 500 && r.status !== 429 && r.status !== 409);
      };
      // A 5xx followed by another answer under its key (a retry that got through) is a transient error: it counts as decided.
      let calm5xx = 0;
      const errors: number[] = [];
      for (let i = 0; i < declined5xx.length; i++) {
        const r = declined5xx.recs.at(i);
        if (faultOverlapping(faults, r.tStart, r.tEnd)) continue;
        calm5xx++;
        if (!answeredOtherwise(r)) errors.push(i);
      }
      const decided = calmRows(declinedDecided, faults) + calm5xx - errors.length;
      if (errors.length < 3 || errors.length < decided) return;
      const ok = calmRows(othersOk, faults);
      const calm = ok + calmRows(others5xx, faults);
      if (ok < 2 || (calm - ok) * 10 > calm) return;
      f.check();
      f.violation(
        joinEvidence(
          `${errors.length} of the ${errors.length + decided} test-mode creates with a decline card outside faults were answered 5xx (${[...new Set(errors.map((i) => `${declined5xx.status(i)} ${show(declined5xx.code(i))}`))].join(', ')}, and nothing else under their Idempotency-Keys), while ${ok} of ${calm} other test-mode creates were answered 2xx: the decline is answered as a server error`,
          errors.map((i) => evidence('', [declined5xx.recs.at(i)])),
        ),
      );
    };
    return {
      kinds: ['exchange'],
      ops: ['create', 'create_hpp', 'raw'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isCreate(rec) || rec.sent.badInput) return;
        const declining = testMode(rec.key) && DECLINE_CARDS.has(rec.sent.cardOutcome ?? '');
        if (testMode(rec.key) && rec.op === 'create' && !rec.sent.auth && rec.status > 0 && rec.status !== 429) {
          if (declining && rec.status >= 500) {
            // The first under its key and Idempotency-Key (a create without one is its own).
            const tuple = rec.idemKey !== undefined ? ctx.ledger.idemRequests(rec.key, CREATE_SCOPE, rec.idemKey) : undefined;
            const own = tuple?.find((r) => r.seq === rec.seq);
            if (!tuple?.some((r) => r !== own && declinedRows.get(r.row) === 1)) {
              if (own) declinedRows.set(own.row, 1);
              declined5xx.push(rec);
            }
          } else if (declining && ![401, 403, 409].includes(rec.status)) declinedDecided.pushValues(rec.tStart, rec.tEnd);
          else if (!declining && is2xx(rec.status)) othersOk.pushValues(rec.tStart, rec.tEnd);
          else if (!declining && rec.status >= 500) others5xx.pushValues(rec.tStart, rec.tEnd);
        }
        const cardError = rec.status === 422 && errorType(rec) === 'card_error';
        if (!declining && !cardError) return;
        if (isInconclusive(rec) || [401, 403, 409].includes(rec.status)) return;
        f.check();
        if (is2xx(rec.status)) return;
        if (rec.status === 422) {
          const dc = rec.error?.decline_code;
          if (errorType(rec) !== 'card_error' || errorCode(rec) !== 'card_declined' || (declining && (typeof dc !== 'string' || !dc))) {
            f.violation(evidence(`declined create answered 422 ${show(errorCode(rec))} / ${show(errorType(rec))} with decline_code ${show(dc)} (expected card_error, card_declined and a decline_code)`, [rec]));
          }
          return;
        }
        f.violation(evidence(`create with the "${rec.sent.cardOutcome}" card answered ${rec.status} ${show(errorCode(rec))}: a decline is 201 or 422 card_declined`, [rec]));
      },
      finish() {
        judgeServerErrors();
        // Declining cards must not end succeeded.
        for (const p of ctx.ledger.payments.values()) {
          if (!testMode(p.key) || !DECLINE_CARDS.has(p.cardOutcome ?? '') || !ctx.ledger.paymentSpans.seen(p.id, 'succeeded')) continue;
          const at = ctx.ledger.paymentSpans.firstEnd(p.id, 'succeeded');
          f.violation({ message: `payment ${p.id} with the "${p.cardOutcome}" card was seen succeeded`, seqs: [p.seq, at.seq], paymentIds: [p.id], keys: [p.key] });
        }
        return f.outcome('no create used a declining card or was declined synchronously');
      },
    };
  },
};
export default invariant;
