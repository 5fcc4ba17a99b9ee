/**
 * What the rate-limit probe measured, rebuilt from the history alone (so `paystorm check` and
 * `report` say the same as the live run): the window edge found by the `rl-edge` probes, the
 * bursts across the next boundary (`rl-burst`), and which limit and window were checked and why.
 * Reports show it; the verdict never depends on it (the rate invariants judge RL-1/RL-2).
 */
import { LIMITS } from '../../spec/limits.ts';
import type { RateBoundary } from '../../spec/index.ts';
import type { ExchangeRecord, HistoryRecord, RunRecord } from '../../history/index.ts';

const SCENARIO = 'rate-limit';
/** Groups whose admitted request, with remaining = limit - 1, opens a window the edge probes then close. */
const OPENERS = new Set(['rl-fresh', 'rl-retry-after']);
const BINS = 40;

type Ex = Pick<ExchangeRecord, 'group' | 'tStart' | 'tEnd' | 'status' | 'rate' | 'key'>;

export function formatWindow(limit: number, windowMs: number): string {
  const w = windowMs % 1000 === 0 ? `${windowMs / 1000} s` : `${windowMs} ms`;
  return `${limit} / ${w}`;
}

/** Why the run checked this limit and window (run record: embedded target, rateLimit). */
export function limitWhy(run: Pick<RunRecord, 'target' | 'rateLimit'>): string {
  const rl = run.rateLimit;
  const spec = formatWindow(LIMITS.rateLimitPerWindow, LIMITS.rateWindowMs);
  if (!rl) return `no X-RateLimit-Limit was learned, so no limit was checked (the spec's is ${spec})`;
  const checked = formatWindow(rl.limit, rl.windowMs);
  if (rl.limit === LIMITS.rateLimitPerWindow && rl.windowMs === LIMITS.rateWindowMs) return `checked the spec's ${spec} window (the target's X-RateLimit-Limit)`;
  if (run.target.embedded)
    return `checked ${checked}: the embedded reference service runs a scaled limit and window (--rate-limit, --window-ms) so the default suite takes about a minute, not the spec's ${spec}`;
  const window = rl.windowMs === LIMITS.rateWindowMs ? `the spec's ${formatWindow(1, rl.windowMs).slice(4)} window` : `a ${formatWindow(1, rl.windowMs).slice(4)} window declared with --window-ms`;
  return `checked ${checked}: the limit is the target's X-RateLimit-Limit and ${window} (the spec's is ${spec})`;
}

/** Collects the rate-limit scenario's exchanges while the history streams past, then measures. */
export class RateBoundaryCollector {
  private run: RunRecord | null = null;
  private readonly ex: Ex[] = [];

  add(r: HistoryRecord): void {
    if (r.kind === 'run') this.run = r;
    else if (r.kind === 'exchange' && r.scenario === SCENARIO && r.group !== undefined && r.group.startsWith('rl-'))
      this.ex.push({ group: r.group, tStart: r.tStart, tEnd: r.tEnd, status: r.status, rate: r.rate, key: r.key });
  }

  result(): RateBoundary | null {
    return this.run ? measureRateBoundary(this.run, this.ex) : null;
  }
}

const admitted = (e: Ex) => e.status !== 0 && e.status !== 429;

export function measureRateBoundary(run: Pick<RunRecord, 'target' | 'rateLimit'>, exchanges: readonly Ex[]): RateBoundary | null {
  const probes = exchanges.filter((e) => e.group === 'rl-edge').sort((a, b) => a.tStart - b.tStart);
  const bursts = exchanges.filter((e) => e.group === 'rl-burst' && e.status !== 0).sort((a, b) => a.tStart - b.tStart);
  if (probes.length === 0 && bursts.length === 0) return null;
  const limit = run.rateLimit?.limit ?? Math.max(0, ...exchanges.map((e) => e.rate?.limit ?? 0));
  let windowMs = run.rateLimit?.windowMs ?? LIMITS.rateWindowMs;
  const key = (probes[0] ?? bursts[0]).key;

  // The edge: the first admitted probe after refused ones; it lies after the last refused probe started.
  let edge: RateBoundary['edge'] = null;
  let edgeProbe: Ex | null = null;
  const firstOk = probes.findIndex(admitted);
  if (firstOk >= 0) {
    edgeProbe = probes[firstOk];
    const lastRefused = firstOk > 0 ? probes[firstOk - 1] : null;
    const from = lastRefused ? lastRefused.tStart : edgeProbe.tStart;
    // The window the probes closed was opened by the last fresh-window request before them.
    const opener = exchanges
      .filter((e) => OPENERS.has(e.group ?? '') && admitted(e) && e.tStart < probes[0].tStart && (limit === 0 || e.rate?.remaining === limit - 1))
      .sort((a, b) => b.tStart - a.tStart)[0];
    edge = {
      from,
      to: edgeProbe.tEnd,
      afterOpenMin: opener ? Math.max(0, from - opener.tEnd) : -1,
      afterOpenMax: opener ? edgeProbe.tEnd - opener.tStart : -1,
    };
    if (opener) {
      // The probe corrects an assumed window the same way the scenario does (whole seconds).
      const measured = Math.round(edge.afterOpenMin / 1000) * 1000;
      if (measured >= 1000 && Math.abs(measured - windowMs) > 500) windowMs = measured;
    }
  }

  // The bursts: the boundary one window after the edge probe, or else the middle of the largest gap.
  let burst: RateBoundary['burst'] = null;
  let bins: RateBoundary['bins'] = [];
  let binMs = 0;
  if (bursts.length > 0) {
    let boundary: number;
    if (edgeProbe) boundary = (edgeProbe.tStart + edgeProbe.tEnd) / 2 + windowMs;
    else {
      let gapAt = 1;
      for (let i = 1; i < bursts.length; i++) if (bursts[i].tStart - bursts[i - 1].tStart > bursts[gapAt].tStart - bursts[gapAt - 1].tStart) gapAt = i;
      boundary = bursts.length > 1 ? (bursts[gapAt].tStart + bursts[gapAt - 1].tStart) / 2 : bursts[0].tStart;
    }
    const ok = bursts.filter(admitted);
    const before = ok.filter((e) => e.tStart < boundary).length;
    const after = ok.length - before;
    const spanMs = ok.length ? Math.max(...ok.map((e) => e.tEnd)) - Math.min(...ok.map((e) => e.tStart)) : 0;
    burst = { boundary, before, after, sent: bursts.length, spanMs };
    const t0 = Math.min(bursts[0].tStart, boundary);
    const t1 = Math.max(...bursts.map((e) => e.tEnd), boundary);
    binMs = Math.max(1, Math.ceil((t1 - t0) / BINS));
    bins = Array.from({ length: Math.ceil((t1 - t0) / binMs) + 1 }, (_, i) => ({ t: t0 + i * binMs, admitted: 0, refused: 0 }));
    for (const e of bursts) {
      const b = bins[Math.min(bins.length - 1, Math.floor((e.tStart - t0) / binMs))];
      if (admitted(e)) b.admitted++;
      else b.refused++;
    }
  }

  const parts: string[] = [];
  if (edge) parts.push(edge.afterOpenMin >= 0 ? `window edge at ${Math.round(edge.afterOpenMin)}-${Math.round(edge.afterOpenMax)} ms after the window opened` : `window edge between ${Math.round(edge.from)} and ${Math.round(edge.to)} ms on the run clock`);
  else if (probes.length) parts.push(`no window edge found: all ${probes.length} edge probes were refused`);
  if (burst) parts.push(`${burst.before} + ${burst.after} admitted across the next boundary within ${Math.round(burst.spanMs)} ms (limit ${limit}, at most ${2 * limit} allowed)`);
  return {
    key,
    limit,
    windowMs,
    why: limitWhy({ target: run.target, rateLimit: run.rateLimit ? { limit: run.rateLimit.limit, windowMs: run.rateLimit.windowMs } : null }),
    edge,
    burst,
    bins,
    binMs,
    text: `${formatWindow(limit, windowMs)}: ${parts.join('; ')}`,
  };
}
