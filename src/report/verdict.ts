/** One-line meanings of the verdict and the exit code, shared by every report. */
import { EXIT } from '../spec/exit-codes.ts';
import type { Summary } from '../spec/summary.ts';

const EXIT_MEANING: Record<number, string> = {
  [EXIT.pass]: 'all invariants held and all thresholds were met',
  [EXIT.violation]: 'an invariant was violated (or could not be checked)',
  [EXIT.threshold]: 'a threshold was breached',
  [EXIT.usage]: 'usage or configuration error',
  [EXIT.target]: 'the target could not be reached',
  [EXIT.interrupted]: 'the run was interrupted',
};

export function exitMeaning(code: number): string {
  return EXIT_MEANING[code] ?? 'unknown exit code';
}

export interface Counts {
  invariants: Record<'pass' | 'fail' | 'error' | 'not-exercised', number>;
  thresholds: { ok: number; breached: number };
}

export function countResults(summary: Summary): Counts {
  const invariants = { pass: 0, fail: 0, error: 0, 'not-exercised': 0 };
  for (const inv of summary.invariants) invariants[inv.status]++;
  const breached = summary.thresholds.filter((t) => !t.ok).length;
  return { invariants, thresholds: { ok: summary.thresholds.length - breached, breached } };
}

/** e.g. `FAIL  2 failed, 1 error, 3 not exercised, 12 passed; 1 of 4 thresholds breached; exit 1: an invariant was violated` */
export function verdictLine(summary: Summary): string {
  const c = countResults(summary);
  const inv = [
    c.invariants.fail && `${c.invariants.fail} failed`,
    c.invariants.error && `${c.invariants.error} error${c.invariants.error > 1 ? 's' : ''}`,
    c.invariants['not-exercised'] && `${c.invariants['not-exercised']} not exercised`,
    `${c.invariants.pass} passed`,
  ].filter(Boolean);
  const thr = summary.thresholds.length
    ? `${c.thresholds.breached} of ${summary.thresholds.length} threshold${summary.thresholds.length > 1 ? 's' : ''} breached`
    : 'no thresholds';
  const incomplete = summary.complete ? '' : ' (incomplete run)';
  return `${summary.verdict.toUpperCase()}${incomplete}: invariants ${inv.join(', ')}; ${thr}; exit ${summary.exitCode}: ${exitMeaning(summary.exitCode)}`;
}

/** Evidence as plain text lines, for JUnit bodies, Markdown code blocks and the console. */
export function evidenceText(ev: {
  message: string;
  requestIds?: string[];
  seqs?: number[];
  times?: number[];
  keys?: string[];
  idemKeys?: string[];
  paymentIds?: string[];
  bodies?: string[];
  repro?: string;
}): string {
  const lines = [ev.message];
  const list = (name: string, xs: readonly (string | number)[] | undefined) => {
    if (xs && xs.length) lines.push(`  ${name}: ${xs.join(', ')}`);
  };
  list('request ids', ev.requestIds);
  list('payment ids', ev.paymentIds);
  list('keys', ev.keys);
  list('idempotency keys', ev.idemKeys);
  list('times (ms)', ev.times?.map(formatMs));
  list('history seqs', ev.seqs);
  for (const b of ev.bodies ?? []) lines.push(`  body: ${b}`);
  if (ev.repro) lines.push(`  repro: ${ev.repro} (curl script; \`paystorm repro RUN ${ev.repro.replace(/^.*\//, '').replace(/\.sh$/, '')}\` replays it)`);
  return lines.join('\n');
}

export function formatMs(ms: number): string {
  return Number.isInteger(ms) ? String(ms) : ms.toFixed(1);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

/** A threshold as shown: its expression, and for a scenario's default, whose traffic it judged. */
export function thresholdLabel(t: { expr: string; scope?: readonly string[] }, runScenarios: readonly { name: string }[] = []): string {
  if (!t.scope?.length) return t.expr;
  const others = runScenarios.map((s) => s.name).filter((n) => !t.scope!.includes(n));
  const over = others.length > 0 && others.length < t.scope.length ? `all but ${others.join(', ')}` : t.scope.join(', ');
  return `${t.expr} (${over} traffic)`;
}

export function formatValue(v: number | null): string {
  if (v === null) return 'n/a';
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) < 1 ? v.toPrecision(3) : v.toFixed(2);
}

/**
 * The verdict's reason in one sentence: summary.json's `reason`, or for a summary written before
 * it existed, the nearest sentence the summary itself supports.
 */
export function verdictReason(s: Summary): string {
  if (s.reason) return s.reason;
  const failed = s.invariants.filter((i) => i.status === 'fail');
  const errored = s.invariants.filter((i) => i.status === 'error');
  if (failed.length) return `failed: ${failed.length} invariant${failed.length > 1 ? 's' : ''} violated (${failed.map((i) => i.id).join(', ')})`;
  if (errored.length) return `failed: ${errored.length} invariant${errored.length > 1 ? 's' : ''} could not be judged (${errored.map((i) => i.id).join(', ')})`;
  if (s.verdict === 'pass') return `passed: ${exitMeaning(s.exitCode)}`;
  return `failed: ${exitMeaning(s.exitCode)}`;
}

export type FindingItem = NonNullable<Summary['findings']>[number];

/** Findings, warnings first (then observations, then infos), in the summary's order within a level. */
export function sortedFindings(s: Summary): FindingItem[] {
  const rank = { warning: 0, observation: 1, info: 2 } as const;
  return [...(s.findings ?? [])].map((f, i) => ({ f, i })).sort((a, b) => rank[a.f.level] - rank[b.f.level] || a.i - b.i).map((x) => x.f);
}

export const FINDING_LABEL = { warning: 'WARNING', observation: 'observation', info: 'info' } as const;

/** `WARNING processor-unreachable: the processor looks unreachable … (PAY-9)` */
export function findingLine(f: FindingItem): string {
  return `${FINDING_LABEL[f.level]} ${f.id}: ${f.text}${f.rules?.length ? ` (${f.rules.join(', ')})` : ''}`;
}

export type ScenarioItem = Summary['scenarios'][number];

/** How a scenario's `status` reads in the reports. */
export const SCENARIO_STATUS_TEXT = { finished: 'ran to its end', 'cut-short': 'cut short', 'not-started': 'never started', started: 'started, end not known' } as const;

/** Whether the summary knows a scenario that did not run to its end (older summaries have no status). */
export function scenariosUnfinished(s: Summary): boolean {
  return s.scenarios.some((x) => x.status !== undefined && x.status !== 'finished');
}

/** `4 requests, 0.0-0.0 s` (run clock), or `no requests`; '' when the summary predates it. */
export function scenarioActivity(x: ScenarioItem): string {
  if (x.requests === undefined) return '';
  if (x.requests === 0 || x.tStart === undefined || x.tEnd === undefined) return 'no requests';
  return `${x.requests} request${x.requests === 1 ? '' : 's'}, ${(x.tStart / 1000).toFixed(1)}-${(x.tEnd / 1000).toFixed(1)} s`;
}

/** `mixed, idempotency (cut short), rate-limit (never started)`: a scenario that ran to its end (or of an older summary) by name alone. */
export function scenarioNames(s: Summary): string {
  return s.scenarios.map((x) => (x.status && x.status !== 'finished' ? `${x.name} (${SCENARIO_STATUS_TEXT[x.status]})` : x.name)).join(', ');
}
