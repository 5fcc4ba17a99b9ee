/**
 * The console summary printed at the end of a run: one aligned line per invariant and
 * per threshold, failures first, then the verdict and what the exit code means.
 * ANSI colour only when asked (the caller knows whether stdout is a TTY).
 */
import { comparisonLines, comparisonOf, driftLines, driftOf } from './comparison.ts';
import type { InvariantStatus, ScenarioStatus, Summary } from '../spec/summary.ts';
import { sortInvariants, sortThresholds } from './order.ts';
import { redactSummary } from './redact.ts';
import { findingLine, formatDuration, formatValue, scenarioActivity, scenariosUnfinished, thresholdLabel, sortedFindings, verdictLine, verdictReason } from './verdict.ts';
import { loadFacts, loadLines } from './load.ts';
import { rateBoundaryLines } from './rate-boundary.ts';

const DETAIL_MAX = 100;

const ANSI = { red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', magenta: '\x1b[35m', dim: '\x1b[2m', bold: '\x1b[1m', reset: '\x1b[0m' } as const;
type Tone = keyof typeof ANSI;

const STATUS_LABEL: Record<InvariantStatus, [string, Tone]> = {
  fail: ['FAIL', 'red'],
  error: ['ERROR', 'magenta'],
  'not-exercised': ['NOT EXERCISED', 'yellow'],
  pass: ['pass', 'green'],
};

const SCENARIO_LABEL: Record<ScenarioStatus, [string, Tone]> = {
  finished: ['finished', 'green'],
  'cut-short': ['CUT SHORT', 'yellow'],
  'not-started': ['NOT STARTED', 'yellow'],
  started: ['started (end not known)', 'yellow'],
};

function oneLine(text: string, max = DETAIL_MAX): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

/** Pads plain cells to column widths, then colours whole cells (escape codes never count toward width). */
function alignedRows(rows: { cells: string[]; tones: (Tone | null)[] }[], paint: (t: Tone | null, s: string) => string): string[] {
  const widths: number[] = [];
  for (const r of rows) r.cells.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)));
  return rows.map((r) => {
    // Empty trailing cells are dropped so no line ends in (possibly coloured) padding.
    let last = r.cells.length - 1;
    while (last > 0 && r.cells[last] === '') last--;
    const cells = r.cells.slice(0, last + 1).map((c, i) => paint(r.tones[i] ?? null, i === last ? c : c + ' '.repeat(widths[i] - [...c].length)));
    return '  ' + cells.join('  ');
  });
}

export function renderConsole(input: Summary, opts: { color?: boolean } = {}): string {
  const s = redactSummary(input);
  const paint = (t: Tone | null, text: string) => (opts.color && t ? `${ANSI[t]}${text}${ANSI.reset}` : text);
  const out: string[] = [];
  const target = `${s.target.url}${s.target.embedded ? ' (embedded)' : ''}, presentation ${s.target.presentation ?? '?'}`;
  out.push(paint('bold', `paystorm ${s.runId}`) + `  ${target}, ${formatDuration(s.duration_ms)}${s.complete ? '' : ', INCOMPLETE'}`);

  // The reason first: a run can fail with zero failed invariants, and this says why.
  out.push(paint(s.verdict === 'pass' ? 'green' : 'red', verdictReason(s)));
  const findings = sortedFindings(s);
  if (findings.length) {
    out.push('', paint('bold', 'Findings'));
    for (const f of findings) out.push('  ' + paint(f.level === 'warning' ? 'yellow' : f.level === 'observation' ? null : 'dim', oneLine(findingLine(f), 400)));
  }
  // A run that stopped early: which scenarios ran to their end, were cut short, never started.
  if (scenariosUnfinished(s)) {
    out.push('', paint('bold', 'Scenarios'));
    const rows = [{ cells: ['STATUS', 'SCENARIO', 'RULES', 'DETAIL'], tones: ['dim', 'dim', 'dim', 'dim'] as (Tone | null)[] }];
    for (const x of s.scenarios) {
      const [label, tone] = x.status ? SCENARIO_LABEL[x.status] : ['?', null];
      rows.push({ cells: [label, x.name, x.rules.join(',') || '-', scenarioActivity(x)], tones: [tone, null, 'dim', null] });
    }
    out.push(...alignedRows(rows, paint));
  }
  out.push('', paint('bold', 'Load'));
  for (const l of loadLines(loadFacts(s))) out.push('  ' + l);
  if (s.rateBoundary) {
    out.push('', paint('bold', 'Rate-limit boundary'));
    for (const l of rateBoundaryLines(s.rateBoundary)) out.push('  ' + l);
  }

  out.push('', paint('bold', 'Invariants'));
  if (s.invariants.length === 0) out.push('  (none evaluated)');
  else {
    const rows = [{ cells: ['STATUS', 'INVARIANT', 'VIOL', 'RULES', 'DETAIL'], tones: ['dim', 'dim', 'dim', 'dim', 'dim'] as (Tone | null)[] }];
    for (const i of sortInvariants(s.invariants)) {
      const [label, tone] = STATUS_LABEL[i.status];
      const detail = i.reason ?? i.examples[0]?.message ?? (i.error ? i.error.split('\n')[0] : '');
      rows.push({
        cells: [label, i.id, i.status === 'fail' ? String(i.violations) : '-', i.rules.join(','), oneLine(detail)],
        tones: [tone, i.status === 'pass' ? null : 'bold', null, 'dim', null],
      });
    }
    out.push(...alignedRows(rows, paint));
    const repros = s.invariants.flatMap((i) => i.examples.flatMap((e) => (e.repro ? [e.repro] : [])));
    if (repros.length) out.push('', `  Repro scripts (curl; \`paystorm repro <run> <id>\` replays one): ${repros.join(', ')}`);
  }

  out.push('', paint('bold', 'Thresholds'));
  if (s.thresholds.length === 0) out.push('  (none set)');
  else {
    const rows = [{ cells: ['STATUS', 'METRIC', 'EXPR', 'VALUE'], tones: ['dim', 'dim', 'dim', 'dim'] as (Tone | null)[] }];
    for (const t of sortThresholds(s.thresholds)) {
      rows.push({ cells: [t.ok ? 'ok' : 'BREACHED', t.metric, thresholdLabel(t, s.scenarios), formatValue(t.value)], tones: [t.ok ? 'green' : 'red', null, null, null] });
    }
    out.push(...alignedRows(rows, paint));
  }

  const cmp = comparisonOf(s);
  if (cmp) {
    out.push('', paint('bold', 'Comparison with the baseline'));
    for (const l of comparisonLines(cmp)) out.push('  ' + l);
  }
  const drift = driftOf(s);
  if (drift) {
    out.push('', paint('bold', 'Drift'));
    for (const l of driftLines(drift)) out.push('  ' + l);
  }

  out.push('', paint(s.verdict === 'pass' ? 'green' : 'red', verdictLine(s)));
  return out.join('\n') + '\n';
}
