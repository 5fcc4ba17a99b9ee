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
      return f.outcome('no create ran while an upstream fault was active');
    };
    return {
      kinds: ['exchange'],
      ops: ['create', 'create_hpp', 'raw'],
      onRecord(rec) {
        if (rec.kind !== 'exchange' || !isCreate(rec) || rec.sent.badInput || rec.sent.auth) return;
        spans.push({ tStart: rec.tStart, tEnd: rec.tEnd });
        reach.observe(rec);
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

function earliestOriginal(rec: ExchangeRecord, ledger: Ledger): number {
  const scope = scopeOf(rec);
  const reqs = scope && rec.idemKey !== undefined ? ledger.idemRequests(rec.key, scope, rec.idemKey) : undefined;
  let t = Infinity;
  for (const r of reqs ?? []) if (r.seq !== rec.seq && r.tStart <= rec.tEnd && (is2xx(r.status) || r.status === 0) && r.tStart < t) t = r.tStart;
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
