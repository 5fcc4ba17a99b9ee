/**
 * Did each fault reach the service? A fault that cannot reach the behaviour it targets tests
 * nothing, so every fault window gets a finding (`fault-reach:<proxy>/<toxic>`) with the
 * evidence the history holds: of the creates started inside the window, how many failed
 * (no answer, a client time-out, a 5xx), how many were slow, and how many of their payments
 * settled late, each against the same measure outside every fault. A window that shows no
 * more effect than the fault-free traffic is a warning: whatever rule it was meant to exercise
 * was judged on traffic the fault may not have touched.
 *
 * From the run record: a `timeout` window shorter than the service's declared upstream
 * time-out (`upstreamTimeoutMs`) cannot make a processor call time out, and fault steps that
 * were skipped (`faultsSkipped`) get a `fault-skipped:<scenario>/<proxy>` warning with the reason.
 */
import type { Finding } from '../../spec/index.ts';
import type { ExchangeRecord, FaultRecord, RunRecord } from '../../history/index.ts';
import type { OracleContext } from '../types.ts';
import { SpillColumns } from './spill.ts';

const COLS = ['seq', 'tStart', 'tEnd', 'failed'] as const;
/** Fewer fault-free creates than this and there is no baseline to compare a window with. */
const MIN_BASELINE = 20;

/** Rules whose judgement depends on a fault of this link reaching the service. */
const RULES_BY_LINK: Record<FaultRecord['link'], string[]> = { upstream: ['FT-2', 'FT-4', 'FT-5'], client: ['FT-3'] };

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const secs = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const pct = (x: number) => `${Math.round(x * 100)}%`;

export class FaultReach {
  /** Every create's times, read once per fault window at the end: kept on disk (lib/spill.ts). */
  private readonly creates = new SpillColumns(COLS);

  /** One create (payment or hosted), as the judge hands it over. */
  observe(rec: ExchangeRecord): void {
    const failed = rec.status === 0 || rec.status >= 500 ? 1 : 0;
    this.creates.pushValues(rec.seq, rec.tStart, rec.tEnd, failed);
  }

  findings(ctx: Pick<OracleContext, 'run' | 'ledger' | 'settleBoundMs'>): Finding[] {
    const { run, ledger } = ctx;
    const out: Finding[] = [];
    for (const s of run?.faultsSkipped ?? []) {
      const id = `fault-skipped:${s.scenario}/${s.proxy}`;
      if (out.some((f) => f.id === id)) continue;
      const types = (run?.faultsSkipped ?? []).filter((x) => x.scenario === s.scenario && x.proxy === s.proxy).map((x) => x.type);
      out.push({ id, level: 'warning', text: `${s.scenario}: ${types.length} fault step(s) (${types.join(', ')}) on proxy "${s.proxy}" did not run, so the rules they exercise were not declared: ${s.reason}.`, rules: s.proxy === 'client' ? ['FT-3'] : RULES_BY_LINK.upstream });
    }
    const faults = ledger.faults;
    if (faults.length === 0) return out;

    const inAnyFault = (a: number, b: number) => faults.some((f) => f.tStart <= b && f.tEnd >= a);
    // The baseline leaves out the recovery after each window too (a backlog draining, retries
    // backing off): the settle bound is how long the spec allows for that (FT-2).
    const recovery = Math.max(1_000, ctx.settleBoundMs);
    const nearFault = (a: number, b: number) => faults.some((f) => f.tStart <= b && f.tEnd + recovery >= a);

    // Fault-free baseline: create durations and settle delays of payments created away from every window.
    const baseDur: number[] = [];
    let baseFailed = 0;
    for (const { cols, n } of this.creates.chunks()) {
      const [, ts, te, failed] = cols;
      for (let i = 0; i < n; i++) {
        if (nearFault(ts[i], te[i])) continue;
        baseDur.push(te[i] - ts[i]);
        baseFailed += failed[i];
      }
    }
    baseDur.sort((a, b) => a - b);
    const baseSettle: number[] = [];
    let baseUnsettled = 0;
    for (const p of ledger.payments.values()) {
      if (nearFault(p.tStart, p.tEnd)) continue;
      const end = ledger.firstTerminalOf(p);
      if (end) baseSettle.push(end.t - p.tEnd);
      else baseUnsettled++;
    }
    baseSettle.sort((a, b) => a - b);
    // Too little fault-free traffic to compare with: fixed bars (a second) and no baseline share.
    const thin = baseDur.length < MIN_BASELINE;
    const p95 = quantile(baseDur, 0.95);
    const slowMs = thin ? 1_000 : Math.max(2 * p95, p95 + 250);
    const s90 = quantile(baseSettle, 0.9);
    const lateMs = thin || Number.isNaN(s90) ? 1_000 : Math.max(2 * s90, s90 + 500);
    const baseN = baseDur.length;
    const baseSlow = baseDur.filter((d) => d > slowMs).length;
    const basePay = baseSettle.length + baseUnsettled;
    const baseLate = baseSettle.filter((d) => d > lateMs).length + baseUnsettled;
    const baseShare = !thin && baseN + basePay > 0 ? (baseFailed + baseSlow + baseLate) / (baseN + basePay) : 0;
    const against = thin ? `with too little fault-free traffic to compare (${baseN} creates)` : `against ${pct(baseShare)} affected outside faults`;

    for (const f of faults) {
      const id = `fault-reach:${f.proxy}/${f.toxic.name}`;
      const what = `fault ${f.proxy}/${f.toxic.name} (${f.toxic.type}${f.toxic.type === 'down' ? '' : `, toxicity ${f.toxic.toxicity}`}, ${secs(f.tEnd - f.tStart)})`;
      const rules = RULES_BY_LINK[f.link];
      const times = [f.tStart, f.tEnd];
      // A `timeout` toxic holds data; only a window longer than the service's processor time-out can make a call time out.
      const declared = run?.upstreamTimeoutMs;
      if (f.link === 'upstream' && f.toxic.type === 'timeout' && declared !== undefined && f.tEnd - f.tStart < declared) {
        out.push({ id, level: 'warning', text: `${what} lasted less than the service's declared upstream time-out (${secs(declared)}): no processor call could time out in it.`, rules, evidence: { message: 'window shorter than the upstream time-out', times } });
        continue;
      }
      let n = 0;
      let nFailed = 0;
      let nSlow = 0;
      const seqs: number[] = [];
      for (const chunk of this.creates.chunks()) {
        const [seq, ts, te, failed] = chunk.cols;
        for (let i = 0; i < chunk.n; i++) {
          if (ts[i] < f.tStart || ts[i] > f.tEnd) continue;
          n++;
          const slow = te[i] - ts[i] > slowMs;
          nFailed += failed[i];
          if (slow) nSlow++;
          if ((failed[i] || slow) && seqs.length < 5) seqs.push(seq[i]);
        }
      }
      let nPay = 0;
      let nLate = 0;
      if (f.link === 'upstream') {
        for (const p of ledger.payments.values()) {
          if (p.tStart < f.tStart || p.tStart > f.tEnd) continue;
          nPay++;
          const end = ledger.firstTerminalOf(p);
          if (!end || end.t - p.tEnd > lateMs) nLate++;
        }
      }
      if (n === 0 && nPay === 0) {
        out.push({ id, level: 'warning', text: `${what}: no create started in its window, so nothing shows whether it reached the service.`, rules, evidence: { message: 'no create in the window', times } });
        continue;
      }
      const share = (nFailed + nSlow + nLate) / (n + nPay);
      const all = [
        { count: nFailed, text: `${nFailed} of ${n} creates failed (no answer, time-out or 5xx)` },
        { count: nSlow, text: `${nSlow} of ${n} creates took over ${secs(slowMs)}` },
        ...(f.link === 'upstream' ? [{ count: nLate, text: `${nLate} of ${nPay} payments created in it settled late (over ${secs(lateMs)}) or never` }] : []),
      ];
      const shown = all.filter((p) => p.count > 0);
      const parts = (shown.length ? shown : all).map((p) => p.text);
      const reached = nFailed + nSlow + nLate > 0 && share > Math.max(2 * baseShare, baseShare + 0.05);
      const untimed = f.link === 'upstream' && f.toxic.type === 'timeout' && declared === undefined && !run?.target.embedded;
      out.push({
        id,
        level: reached ? 'info' : 'warning',
        text: reached
          ? `${what} reached the service: ${parts.join(', ')}, ${against}.`
          : `${what} showed no effect beyond the fault-free traffic (${pct(share)} affected, ${against}: ${parts.join(', ')}), so it may not have reached the service${untimed ? '; declare the service\'s processor time-out with --upstream-timeout so the window outlasts it' : ''}.`,
        rules,
        evidence: { message: reached ? 'creates affected in the window' : 'no effect measured in the window', times, ...(seqs.length ? { seqs } : {}) },
      });
    }
    return out;
  }
}
