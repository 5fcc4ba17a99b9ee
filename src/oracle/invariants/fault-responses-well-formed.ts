import { ALLOWED_5XX, TERMINAL_STATUSES, type PaymentStatus } from '../../spec/index.ts';
import { type ExchangeRecord, type FaultRecord } from '../../history/index.ts';
import type { IdemRequest, Ledger } from '../ledger.ts';
import type { Invariant, InvariantOutcome } from '../types.ts';
import { errorCode, is2xx, isCreate, scopeOf } from '../lib/exchange.ts';
import { Columns } from '../lib/columns.ts';
import { SpillColumns } from '../lib/spill.ts';
import { Uint32Column } from '../lib/paged-column.ts';
import { faultOverlapping, hardFaultCovering } from '../lib/faults.ts';
import { Findings } from '../lib/findings.ts';
import { FaultReach } from '../lib/fault-reach.ts';

/**
 * FT-4: under upstream faults a create answers 201 pending or 503 service_unavailable, never
 * an empty or malformed body: a 5xx other than a full 503 service_unavailable, a non-JSON
 * body, or a dropped connection (not a client time-out) fails; so does a Direct API create
 * settled synchronously while a hard fault surely stopped the upstream for its whole duration
 * (between Toxiproxy's acknowledgement and the request to remove it: lib/faults.ts), unless
 * it may replay a request under its Idempotency-Key sent before the fault surely acted.
 * Failing open later fails too: a Direct API create answered 201 not yet settled inside the sure
 * window of a hard fault that also keeps requests from the processor (`down`, or a toxic on the
 * upstream stream: a downstream-only toxic lets the charge through, and a processor may report
 * its outcome some other way), whose payment is then seen succeeded by an observation that
 * surely ended inside the same window (the processor was unreachable from its creation to its
 * success), unless the payment may have been made by a request under its Idempotency-Key sent
 * before the fault surely acted, or waited on a customer (3DS: the challenge, not the processor,
 * may settle it).
 * Requests that also crossed a client-link fault are not judged.
 * Its findings say, per fault window, whether the fault reached the service (lib/fault-reach.ts).
 */
const invariant: Invariant = {
  id: 'fault-responses-well-formed',
  title: 'Under upstream faults a create answers 201 pending or 503 service_unavailable, never an empty or malformed body',
  rules: ['FT-4'],
  create(ctx) {
    const f = new Findings();
    /**
     * Spans of the creates not in `opened` (whose notes carry their own): with those, every create,
     * to count the ones that ran during a fault once the windows are known. Numbers only, kept on
     * disk (lib/spill.ts).
     */
    const spans = new SpillColumns(['tStart', 'tEnd'] as const);
    /**
     * The creates that are wrong whatever the fault (no answer, not JSON, a 5xx other than a full
     * 503), or wrong under a hard fault they did not replay through (`settled`: a Direct API create
     * answered 2xx already settled): a violation if they ran during an upstream fault.
     * `replayOf`: earliest start of another request under its Idempotency-Key that began before it
     * ended and was answered 2xx or not at all (Infinity when none): its answer may be that
     * request's payment replayed, which settled before the fault only if that request began before
     * the fault surely acted. `slack`: merged histories, how far its times may be off the merged clock.
     */
    const suspects = new Columns(['seq', 'tStart', 'tEnd', 'slack', 'replayOf', 'settled'] as const);
    const suspectKeys: string[] = [];
    /** What is wrong with each suspect (the same few texts, each kept once). */
    const suspectProblems: string[] = [];
    const problemTexts = new Map<string, string>();
    /**
     * Direct API creates answered 2xx with a payment not yet settled: it may then be seen succeeded
     * while the upstream is still down. Each is the ledger's own row of the request when it carried
     * an Idempotency-Key (kept for the run anyway, so four bytes here), else a note of the same
     * fields. Their clock slack (merged histories) only once some create had one.
     */
    const opened = new OpenedCreates(ctx.ledger);
    let openedSlack: Columns<'slack'> | null = null;
    const slackOf = (i: number) => (openedSlack ? openedSlack.col('slack')[i] : 0);
    const reach = new FaultReach();
    const judgeFaults = (): InvariantOutcome => {
      const faults = ctx.ledger.faults;
      const upstream = faults.filter((x) => x.link === 'upstream');
      if (upstream.length === 0) return f.outcome('the run injected no upstream fault');
      const judgedSpan = (tStart: number, tEnd: number) => faultOverlapping(upstream, tStart, tEnd) && !faultOverlapping(faults, tStart, tEnd, 'client');
      for (const { cols, n } of spans.chunks()) {
        const [sts, ste] = cols;
        for (let i = 0; i < n; i++) if (judgedSpan(sts[i], ste[i])) f.check();
      }
      for (let i = 0; i < opened.length; i++) {
        const o = opened.at(i);
        if (judgedSpan(o.tStart, o.tEnd)) f.check();
      }
      const seq = suspects.col('seq');
      const ts = suspects.col('tStart');
      const te = suspects.col('tEnd');
      const sl = suspects.col('slack');
      const replayOf = suspects.col('replayOf');
      const settled = suspects.col('settled');
      for (let i = 0; i < suspects.length; i++) {
        const during = faultOverlapping(upstream, ts[i], te[i]);
        if (!during || faultOverlapping(faults, ts[i], te[i], 'client')) continue;
        if (settled[i] && !settledWhileDown(upstream, ts[i], te[i], sl[i], replayOf[i])) continue;
        f.violation({ message: `create during upstream fault "${during.toxic.name}" (${during.toxic.type}): ${suspectProblems[i]}`, seqs: [seq[i]], times: [ts[i]], keys: [suspectKeys[i]] });
      }
      judgeSucceededWhileDown(upstream.filter(stopsRequests), faults);
      return f.outcome('no create ran while an upstream fault was active');
    };
    /** A payment created inside a sure window of a hard fault and first seen succeeded before that window surely ended. */
    const judgeSucceededWhileDown = (upstream: readonly FaultRecord[], faults: readonly FaultRecord[]): void => {
      const { ledger } = ctx;
      const judged = new Set<string>();
      for (let i = 0; i < opened.length; i++) {
        const o = opened.at(i);
        const id = o.objectId;
        if (judged.has(id)) continue;
        const seen = ledger.paymentSpans.firstEnd(id, 'succeeded');
        // The observation's end already carries its record's clock slack (ledger).
        if (seen.t === Infinity || seen.t < o.tStart) continue;
        if (ledger.threeDs.has(id) || ledger.paymentSpans.seen(id, 'requires_action')) continue;
        if (faultOverlapping(faults, o.tStart, o.tEnd, 'client')) continue;
        // The payment exists since its earliest request under the key that may have made it (a replay shows an older payment).
        const made = Math.min(o.tStart, earliestRequest(ledger, o.key, o.idemKey, o.seq, o.tEnd));
        const covering = hardFaultCovering(upstream, made - slackOf(i), seen.t);
        if (!covering) continue;
        judged.add(id);
        f.violation({
          message: `payment ${id}, created 201 during upstream fault "${covering.toxic.name}" (${covering.toxic.type}), was seen succeeded while the upstream was still surely down (from its create to that observation): the service failed open`,
          seqs: [o.seq, seen.seq],
          times: [o.tStart, seen.t],
          paymentIds: [id],
          keys: [o.key],
        });
      }
    };
    return {
      kinds: ['exchange'],
      ops: ['create', 'create_hpp', 'raw'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isCreate(rec) || rec.sent.badInput || rec.sent.auth) return;
        reach.observe(rec);
        // A payment already seen waiting on a customer (3DS) is never judged as failing open: its span is all that counts.
        const id = rec.payment?.id;
        if (rec.op === 'create' && is2xx(rec.status) && id !== undefined && !TERMINAL_STATUSES.has(rec.payment!.status) && !ctx.ledger.threeDs.has(id) && !ctx.ledger.paymentSpans.seen(id, 'requires_action')) {
          const slack = rec.clockSlackMs ?? 0;
          if (slack !== 0 && !openedSlack) {
            openedSlack = new Columns(['slack'] as const);
            for (let i = 0; i < opened.length; i++) openedSlack.pushValues(0);
          }
          openedSlack?.pushValues(slack);
          opened.push(ledgerNote(ctx.ledger, rec, id) ?? { seq: rec.seq, key: rec.key, idemKey: rec.idemKey, tStart: rec.tStart, tEnd: rec.tEnd, objectId: id });
        } else spans.pushValues(rec.tStart, rec.tEnd);
        const settledAtOnce = rec.payment !== null && TERMINAL_STATUSES.has(rec.payment.status);
        // No answer because paystorm closed its client ('aborted') is not the service's doing: not judged, like a time-out.
        const suspect = (rec.status === 0 && rec.failure !== 'timeout' && rec.failure !== 'aborted') || (rec.status > 0 && !rec.json) || rec.status >= 500 || settledAtOnce;
        if (!suspect) return;
        const problem = problemOf(rec);
        if (problem === null) return;
        suspects.pushValues(rec.seq, rec.tStart, rec.tEnd, rec.clockSlackMs ?? 0, problem.settled ? earliestOriginal(rec, ctx.ledger) : Infinity, problem.settled ? 1 : 0);
        suspectKeys.push(rec.key);
        let text = problemTexts.get(problem.text);
        if (text === undefined) problemTexts.set(problem.text, (text = problem.text));
        suspectProblems.push(text);
      },
      finish() {
        return { ...judgeFaults(), findings: reach.findings(ctx) };
      },
    };
  },
};

/** What the end needs of a Direct API create answered 2xx with a payment not yet settled (`objectId`: that payment). */
type OpenedCreate = Pick<IdemRequest, 'seq' | 'key' | 'tStart' | 'tEnd'> & { idemKey: string | undefined; objectId: string };

/** The opened creates in arrival order: the ledger's row of each one it noted (most), the note itself for the others. */
class OpenedCreates {
  length = 0;
  /** The ledger's row plus one; 0 for a create kept in `notes`. */
  private readonly rows = new Uint32Column();
  private readonly notes = new Map<number, OpenedCreate>();
  constructor(private readonly ledger: Ledger) {}

  push(o: OpenedCreate | IdemRequest): void {
    const i = this.length++;
    if ('row' in o) this.rows.set(i, o.row + 1);
    else this.notes.set(i, o);
  }

  at(i: number): OpenedCreate {
    const r = this.rows.get(i);
    return r === 0 ? this.notes.get(i)! : (this.ledger.idemRequestAt(r - 1) as OpenedCreate);
  }
}

/**
 * The ledger's note of this create under its Idempotency-Key (the ledger sees every record before
 * the invariants), when it says the same as the record; else undefined.
 */
function ledgerNote(ledger: Ledger, rec: ExchangeRecord, id: string): IdemRequest | undefined {
  const scope = scopeOf(rec);
  const reqs = scope && rec.idemKey !== undefined ? ledger.idemRequests(rec.key, scope, rec.idemKey) : undefined;
  if (!reqs) return undefined;
  for (let i = reqs.length - 1; i >= 0; i--) {
    const r = reqs[i];
    if (r.seq === rec.seq && r.tStart === rec.tStart && r.tEnd === rec.tEnd) return r.key === rec.key && r.idemKey === rec.idemKey && r.objectId === id ? r : undefined;
  }
  return undefined;
}

/**
 * A fault that keeps the service's requests from reaching the processor while it surely acts (with
 * hardFaultCovering's own test): the proxy down, or a toxic on the upstream (request) stream.
 * A downstream-only toxic holds or cuts the processor's answers, not the charge request itself.
 */
function stopsRequests(f: FaultRecord): boolean {
  return f.toxic.type === 'down' || f.toxic.stream === 'upstream';
}

function earliestOriginal(rec: ExchangeRecord, ledger: Ledger): number {
  const scope = scopeOf(rec);
  return scope ? earliestRequest(ledger, rec.key, rec.idemKey, rec.seq, rec.tEnd, scope) : Infinity;
}

/**
 * Earliest start of another request under the same key, scope and Idempotency-Key that began
 * before `tEnd` and was answered 2xx or not at all (Infinity when none): the request's answer may
 * be that one's payment replayed.
 */
function earliestRequest(ledger: Ledger, key: string, idemKey: string | undefined, seq: number, tEnd: number, scope = 'payment_create'): number {
  const reqs = idemKey !== undefined ? ledger.idemRequests(key, scope, idemKey) : undefined;
  let t = Infinity;
  for (const r of reqs ?? []) if (r.seq !== seq && r.tStart <= tEnd && (is2xx(r.status) || r.status === 0) && r.tStart < t) t = r.tStart;
  return t;
}

/**
 * What is wrong with a create, as far as its record says: `settled` when it is wrong only under a
 * hard fault that surely stopped the upstream for its whole duration (settledWhileDown); null
 * when it is wrong under no fault (a client time-out, a full 503, a hosted create settled at once).
 */
function problemOf(rec: ExchangeRecord): { text: string; settled: boolean } | null {
  if (rec.status === 0) return rec.failure === 'timeout' ? null : { text: `the connection ended without an answer (${rec.failure})`, settled: false };
  if (!rec.json) return { text: `answered ${rec.status} with a body that is not JSON`, settled: false };
  const code = errorCode(rec);
  if (rec.status >= 500 && (rec.status !== 503 || code !== ALLOWED_5XX[503] || (rec.error?.missing.length ?? 0) > 0)) {
    return { text: `answered ${rec.status} ${code ?? ''} (expected 201 pending or a full 503 service_unavailable)`, settled: false };
  }
  const paymentStatus: PaymentStatus | null = rec.payment?.status ?? null;
  if (rec.op === 'create' && rec.status >= 200 && rec.status < 300 && paymentStatus !== null && TERMINAL_STATUSES.has(paymentStatus)) {
    return { text: `answered ${paymentStatus} synchronously while the upstream was down`, settled: true };
  }
  return null;
}

/**
 * A Direct API create answered 2xx already settled, during upstream faults: a hard fault surely
 * stopped the upstream for its whole duration, and its answer cannot be the replay of a request
 * under its Idempotency-Key sent before that fault surely acted (`replayOf`: that request's start).
 */
function settledWhileDown(upstream: readonly FaultRecord[], tStart: number, tEnd: number, slack: number, replayOf: number): boolean {
  const covering = hardFaultCovering(upstream, tStart - slack, tEnd + slack);
  // A replay of a request sent before the fault surely acted may show a payment that settled then.
  const replayOfEarlier = covering !== undefined && replayOf < covering.tApplied! + (covering.clockSlackMs ?? 0) + slack;
  return covering !== undefined && !replayOfEarlier;
}
export default invariant;
