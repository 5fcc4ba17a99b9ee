/** summary.md: the run at a glance for a CI step summary (GitHub-flavoured Markdown). */
import type { InvariantStatus, Summary } from '../spec/summary.ts';
import { escapeHtmlText, escapeMarkdown, mdCodeCell, mdFence } from './escape.ts';
import { sortInvariants, sortThresholds } from './order.ts';
import { redactSummary } from './redact.ts';
import { evidenceText, findingLine, formatDuration, formatValue, scenarioNames, thresholdLabel, sortedFindings, verdictLine, verdictReason } from './verdict.ts';
import { loadFacts, loadLines } from './load.ts';
import { rateBoundaryLines } from './rate-boundary.ts';
import { comparisonHeadline, comparisonLines, comparisonOf, driftHeadline, driftLines, driftOf } from './comparison.ts';

const FINDING_BADGE = { warning: '⚠️', observation: '🔎', info: 'ℹ️' } as const;

const BADGE: Record<InvariantStatus, string> = { fail: '❌ fail', error: '💥 error', 'not-exercised': '⚪ not exercised', pass: '✅ pass' };

function table(header: string[], rows: string[][]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

export function renderMarkdown(input: Summary): string {
  const s = redactSummary(input);
  const c = escapeMarkdown;
  const out: string[] = [];
  out.push(`## paystorm ${s.verdict === 'pass' ? '✅ PASS' : '❌ FAIL'}${s.complete ? '' : ' (incomplete)'}`, '');
  // The reason first, in one sentence: a run can fail with no failed invariant.
  out.push(`**${c(verdictReason(s))}**`, '', c(verdictLine(s)), '');
  const findings = sortedFindings(s);
  if (findings.length) {
    out.push('### Findings', '');
    for (const f of findings) out.push(`- ${FINDING_BADGE[f.level]} ${c(findingLine(f))}`);
    out.push('');
  }
  out.push('### Load', '');
  for (const l of loadLines(loadFacts(s))) out.push(`- ${c(l)}`);
  out.push('');
  if (s.rateBoundary) {
    const [text, why, ...plot] = rateBoundaryLines(s.rateBoundary);
    out.push('### Rate-limit boundary', '', c(text), '', c(why), '');
    if (plot.length) out.push(mdFence(plot.join('\n'), 'text'), '');
  }
  out.push(
    ...table(
      ['Run', 'Target', 'Started', 'Duration', 'Scenarios'],
      [[
        c(s.runId),
        c(`${s.target.url}${s.target.embedded ? ' (embedded)' : ''}, presentation ${s.target.presentation ?? '?'}`),
        c(s.started_at),
        c(formatDuration(s.duration_ms)),
        c(scenarioNames(s) || 'none'),
      ]],
    ),
    '',
  );

  out.push('### Invariants', '');
  if (s.invariants.length === 0) out.push('_No invariants were evaluated._', '');
  else {
    const rows = sortInvariants(s.invariants).map((i) => [
      BADGE[i.status],
      `**${c(i.id)}** ${c(i.title)}`,
      c(i.rules.join(', ')),
      String(i.violations),
      String(i.checked),
      c(i.reason ?? i.examples[0]?.message ?? (i.error ?? '').split('\n')[0]),
    ]);
    out.push(...table(['Status', 'Invariant', 'Rules', 'Violations', 'Checked', 'Reason'], rows), '');
  }

  out.push('### Thresholds', '');
  if (s.thresholds.length === 0) out.push('_No thresholds were set._', '');
  else {
    const rows = sortThresholds(s.thresholds).map((t) => [t.ok ? '✅ ok' : '❌ breached', c(t.metric), mdCodeCell(thresholdLabel(t, s.scenarios)), c(formatValue(t.value))]);
    out.push(...table(['Status', 'Metric', 'Expression', 'Value'], rows), '');
  }
  const cmp = comparisonOf(s);
  if (cmp) out.push('### Comparison with the baseline', '', `**${c(comparisonHeadline(cmp))}**`, '', mdFence(comparisonLines(cmp).slice(1).join('\n'), 'text'), '');
  const drift = driftOf(s);
  if (drift) out.push('### Drift', '', `**${c(driftHeadline(drift))}**`, '', mdFence(driftLines(drift).slice(1).join('\n'), 'text'), '');

  const bad = sortInvariants(s.invariants).filter((i) => i.status === 'fail' || i.status === 'error');
  if (bad.length) {
    out.push('### Evidence', '');
    for (const i of bad) {
      const text =
        i.status === 'error'
          ? (i.error ?? i.reason ?? 'no stack')
          : i.examples.map((e, n) => `--- example ${n + 1} of ${i.violations}\n${evidenceText(e)}`).join('\n') || (i.reason ?? 'no examples recorded');
      // <details> keeps a long list of failures readable; the code block needs blank lines around it to render as Markdown.
      // The <summary> line is raw HTML, where Markdown is not read: its text is escaped as HTML.
      out.push(`<details><summary>${BADGE[i.status]} ${escapeHtmlText(i.id)}: ${escapeHtmlText(i.title)} (${i.status === 'error' ? 'could not be evaluated' : `${i.violations} violation${i.violations === 1 ? '' : 's'}`})</summary>`, '');
      out.push(mdFence(text, 'text'), '', '</details>', '');
    }
  }
  out.push(`_Full report: \`report.html\` (charts, evidence), \`summary.json\`, \`junit.xml\`._`, '');
  return out.join('\n');
}
