/**
 * What was measured, in a few lines every report shares: requests, achieved vs target rate,
 * latency percentiles over every answered request, status-code counts, errors, dropped
 * iterations and fault windows. Reads the loosely typed `summary.metrics` through readMetrics.
 */
import type { Summary } from '../spec/summary.ts';
import { mergeHistograms, summarizeEncoded } from '../history/metrics.ts';
import { readMetrics } from './metrics.ts';
import { formatDuration } from './verdict.ts';

export interface LoadFacts {
  requests: number;
  durationMs: number;
  /** Requests per second over the load. */
  rps: number;
  /** Each executor: target and achieved iterations/s. */
  executors: { scenario: string; executor: string; targetRate: number | null; achievedRate: number; iterations: number; dropped: number }[];
  /** Every answered request (all operations; failures without an answer excluded). */
  latency: { count: number; p50: number; p90: number; p99: number; p999: number; max: number } | null;
  /** The latency is the slowest single series (the summary carried no histograms to merge). */
  latencyApprox: boolean;
  /** Answers by status class, and requests with no answer. */
  statuses: { '2xx': number; '4xx': number; '429': number; '5xx': number; failure: number };
  dropped: number;
  faults: { label: string; from: number; to: number }[];
}

export function loadFacts(s: Summary): LoadFacts {
  const m = readMetrics(s.metrics);
  const statuses = { '2xx': 0, '4xx': 0, '429': 0, '5xx': 0, failure: 0 };
  const hdrs: string[] = [];
  let slowest: LoadFacts['latency'] = null;
  for (const byClass of Object.values(m.latency)) {
    for (const [cls, l] of Object.entries(byClass)) {
      if (cls in statuses) statuses[cls as keyof typeof statuses] += l.count;
      if (cls === 'failure' || l.count === 0) continue;
      if (l.hdr) hdrs.push(l.hdr);
      if (!slowest || l.p99 > slowest.p99) slowest = { count: l.count, p50: l.p50, p90: l.p90, p99: l.p99, p999: l.p999, max: l.max };
    }
  }
  // Without histograms (a hand-made summary) the slowest series stands in.
  let latency: LoadFacts['latency'] = slowest;
  let latencyApprox = slowest !== null;
  if (hdrs.length) {
    try {
      const all = summarizeEncoded(mergeHistograms(hdrs));
      latency = { count: all.count, p50: all.p50, p90: all.p90, p99: all.p99, p999: all.p999, max: all.max };
      latencyApprox = false;
    } catch {
      // A histogram that does not decode: the slowest series still says something.
      latency = slowest;
    }
  }
  const durationMs = m.durationMs || s.duration_ms;
  return {
    requests: m.requests,
    durationMs,
    rps: durationMs > 0 ? m.requests / (durationMs / 1000) : 0,
    executors: (s.load ?? []).map((l) => ({ scenario: l.scenario, executor: l.executor, targetRate: l.targetRate, achievedRate: l.achievedRate, iterations: l.iterations, dropped: l.dropped })),
    latency,
    latencyApprox,
    statuses,
    dropped: m.dropped,
    faults: s.faults.map((f) => ({ label: `${f.type} (${f.link}${f.toxicity < 1 ? `, ${Math.round(f.toxicity * 100)}%` : ''})`, from: f.tStart, to: f.tEnd })),
  };
}

const r1 = (v: number) => (v >= 100 ? String(Math.round(v)) : v.toFixed(1));
export const ms = (v: number) => `${r1(v)} ms`;

/** `120.0/s target, 118.4/s achieved` or `closed model` for each executor. */
export function executorLine(e: LoadFacts['executors'][number]): string {
  const rate = e.targetRate === null ? `closed model, ${e.achievedRate.toFixed(1)} it/s` : `target ${e.targetRate.toFixed(1)}/s, achieved ${e.achievedRate.toFixed(1)}/s (${Math.round((e.achievedRate / Math.max(1e-9, e.targetRate)) * 100)}%)`;
  return `${e.scenario} ${e.executor}: ${rate}, ${e.iterations} iterations${e.dropped ? `, ${e.dropped} dropped` : ''}`;
}

/** Plain lines (no markup) describing the load, for the console and the Markdown list. */
export function loadLines(f: LoadFacts): string[] {
  const out: string[] = [];
  out.push(`requests: ${f.requests} in ${formatDuration(f.durationMs)} (${f.rps.toFixed(1)}/s)`);
  for (const e of f.executors) out.push(`rate: ${executorLine(e)}`);
  if (f.latency) out.push(`latency (${f.latencyApprox ? `slowest series, ${f.latency.count} answers` : `${f.latency.count} answered`}): p50 ${ms(f.latency.p50)}, p90 ${ms(f.latency.p90)}, p99 ${ms(f.latency.p99)}, p99.9 ${ms(f.latency.p999)}, max ${ms(f.latency.max)}`);
  else out.push('latency: no answered requests');
  const st = f.statuses;
  out.push(`statuses: 2xx ${st['2xx']}, 4xx ${st['4xx']}, 429 ${st['429']}, 5xx ${st['5xx']}; errors (no answer) ${st.failure}; dropped iterations ${f.dropped}`);
  if (f.faults.length) out.push(`faults: ${f.faults.map((x) => `${x.label} ${(x.from / 1000).toFixed(1)}-${(x.to / 1000).toFixed(1)} s`).join('; ')}`);
  else out.push('faults: none injected');
  return out;
}
