import { ALLOWED_5XX, TERMINAL_STATUSES, type PaymentStatus } from '../../spec/index.ts';
import { type ExchangeRecord, type FaultRecord } from '../../history/index.ts';
import type { Ledger } from '../ledger.ts';
import type { Invariant, InvariantOutcome } from '../types.ts';
import { errorCode, is2xx, isCreate, scopeOf } from '../lib/exchange.ts';
import { Columns } from '../lib/columns.ts';
import { faultOverlapping, hardFaultCovering } from '../lib/faults.ts';
import { Findings } from '../lib/findings.ts';
import { FaultReach } from '../lib/fault-reach.ts';

interface CreateSeen {
  seq: number;
  key: string;
  direct: boolean;
  tStart: number;
  tEnd: number;
  /**
   * Earliest start of another request under its Idempotency-Key that began before it ended and
   * was answered 2xx or not at all (Infinity when none): its answer may be that request's payment
   * replayed, which settled before the fault only if that request began before the fault surely acted.
   */
  replayOf: number;
  /** Merged histories: how far this record's times may be off the merged clock. */
  slack: number;
  status: number;
  code: string | null;
  json: boolean;
  failure: string | null;
  paymentStatus: PaymentStatus | null;
  errorMissing: number;
}

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
    /** Spans of every create (to count what ran during a fault) and the details of the ones that may be wrong. */
    const spans = new Columns(['tStart', 'tEnd'] as const);
    const suspects: CreateSeen[] = [];
    /** Direct API creates answered 2xx with a payment not yet settled: it may then be seen succeeded while the upstream is still down. */
    const opened = new Columns(['seq', 'tStart', 'tEnd', 'slack'] as const);
    const openedIds: string[] = [];
    const openedKeys: string[] = [];
    const openedIdem: (string | undefined)[] = [];
    const reach = new FaultReach();
    const judgeFaults = (): InvariantOutcome => {
      const faults = ctx.ledger.faults;
      const upstream = faults.filter((x) => x.link === 'upstream');
      if (upstream.length === 0) return f.outcome('the run injected no upstream fault');
      const ts = spans.col('tStart');
      const te = spans.col('tEnd');
      for (let i = 0; i < spans.length; i++) if (faultOverlapping(upstream, ts[i], te[i]) && !faultOverlapping(faults, ts[i], te[i], 'client')) f.check();
      for (const c of suspects) {
        const during = faultOverlapping(upstream, c.tStart, c.tEnd);
        if (!during || faultOverlapping(faults, c.tStart, c.tEnd, 'client')) continue;
        const problem = judge(c, upstream);
        if (problem) f.violation({ message: `create during upstream fault "${during.toxic.name}" (${during.toxic.type}): ${problem}`, seqs: [c.seq], times: [c.tStart], keys: [c.key] });
      }
      judgeSucceededWhileDown(upstream.filter(stopsRequests), faults);
      return f.outcome('no create ran while an upstream fault was active');
    };
    /** A payment created inside a sure window of a hard fault and first seen succeeded before that window surely ended. */
    const judgeSucceededWhileDown = (upstream: readonly FaultRecord[], faults: readonly FaultRecord[]): void => {
      const { ledger } = ctx;
      const seq = opened.col('seq');
      const ts = opened.col('tStart');
      const te = opened.col('tEnd');
      const sl = opened.col('slack');
      const judged = new Set<string>();
      for (let i = 0; i < opened.length; i++) {
        const id = openedIds[i];
        if (judged.has(id)) continue;
        const seen = ledger.paymentSpans.firstEnd(id, 'succeeded');
        // The observation's end already carries its record's clock slack (ledger).
        if (seen.t === Infinity || seen.t < ts[i]) continue;
        if (ledger.threeDs.has(id) || ledger.paymentSpans.seen(id, 'requires_action')) continue;
        if (faultOverlapping(faults, ts[i], te[i], 'client')) continue;
        // The payment exists since its earliest request under the key that may have made it (a replay shows an older payment).
        const made = Math.min(ts[i], earliestRequest(ledger, openedKeys[i], openedIdem[i], seq[i], te[i]));
        const covering = hardFaultCovering(upstream, made - sl[i], seen.t);
        if (!covering) continue;
        judged.add(id);
        f.violation({
          message: `payment ${id}, created 201 during upstream fault "${covering.toxic.name}" (${covering.toxic.type}), was seen succeeded while the upstream was still surely down (from its create to that observation): the service failed open`,
          seqs: [seq[i], seen.seq],
          times: [ts[i], seen.t],
          paymentIds: [id],
          keys: [openedKeys[i]],
        });
      }
    };
    return {
      kinds: ['exchange'],
      ops: ['create', 'create_hpp', 'raw'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isCreate(rec) || rec.sent.badInput || rec.sent.auth) return;
        spans.push({ tStart: rec.tStart, tEnd: rec.tEnd });
        reach.observe(rec);
        if (rec.op === 'create' && is2xx(rec.status) && rec.payment !== null && !TERMINAL_STATUSES.has(rec.payment.status)) {
          opened.pushValues(rec.seq, rec.tStart, rec.tEnd, rec.clockSlackMs ?? 0);
          openedIds.push(rec.payment.id);
          openedKeys.push(rec.key);
          openedIdem.push(rec.idemKey);
        }
        const settledAtOnce = rec.payment !== null && TERMINAL_STATUSES.has(rec.payment.status);
        // No answer because paystorm closed its client ('aborted') is not the service's doing: not judged, like a time-out.
        const suspect = (rec.status === 0 && rec.failure !== 'timeout' && rec.failure !== 'aborted') || (rec.status > 0 && !rec.json) || rec.status >= 500 || settledAtOnce;
        if (!suspect) return;
        suspects.push({
          seq: rec.seq,
          key: rec.key,
          direct: rec.op === 'create',
          tStart: rec.tStart,
          tEnd: rec.tEnd,
          replayOf: settledAtOnce ? earliestOriginal(rec, ctx.ledger) : Infinity,
          slack: rec.clockSlackMs ?? 0,
          status: rec.status,
          code: errorCode(rec),
          json: rec.json,
          failure: rec.failure,
          paymentStatus: rec.payment?.status ?? null,
          errorMissing: rec.error?.missing.length ?? 0,
        });
      },
      finish() {
        return { ...judgeFaults(), findings: reach.findings(ctx) };
      },
    };
  },
};

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

function judge(c: CreateSeen, upstream: readonly FaultRecord[]): string | null {
  if (c.status === 0) return c.failure === 'timeout' ? null : `the connection ended without an answer (${c.failure})`;
  if (!c.json) return `answered ${c.status} with a body that is not JSON`;
  if (c.status >= 500 && (c.status !== 503 || c.code !== ALLOWED_5XX[503] || c.errorMissing > 0)) return `answered ${c.status} ${c.code ?? ''} (expected 201 pending or a full 503 service_unavailable)`;
  const covering = hardFaultCovering(upstream, c.tStart - c.slack, c.tEnd + c.slack);
  // A replay of a request sent before the fault surely acted may show a payment that settled then.
  const replayOfEarlier = covering !== undefined && c.replayOf < covering.tApplied! + (covering.clockSlackMs ?? 0) + c.slack;
  if (c.direct && covering && !replayOfEarlier && c.status >= 200 && c.status < 300 && c.paymentStatus !== null && TERMINAL_STATUSES.has(c.paymentStatus)) {
    return `answered ${c.paymentStatus} synchronously while the upstream was down`;
  }
  return null;
}
export default invariant;
