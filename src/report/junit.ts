/**
 * junit.xml: one testcase per invariant and per threshold, so CI test views list
 * them. A violated invariant or breached threshold is a <failure> whose body is the
 * evidence; an oracle exception is an <error> with its stack; not-exercised is <skipped>.
 */
import type { InvariantResult, Summary, ThresholdResult } from '../spec/summary.ts';
import { escapeXml, escapeXmlAttr } from './escape.ts';
import { redactSummary } from './redact.ts';
import { evidenceText, findingLine, formatValue, thresholdLabel, sortedFindings, verdictLine, verdictReason } from './verdict.ts';
import { loadFacts, loadLines } from './load.ts';
import { rateBoundaryLines } from './rate-boundary.ts';
import { comparisonOf, driftOf } from './comparison.ts';

/** expr -> why, for the regression (baseline) and drift thresholds. */
function thresholdNotes(s: Summary): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of comparisonOf(s)?.regressions ?? []) out.set(r.expr, `${r.note} [baseline ${comparisonOf(s)!.baseline.runId}]`);
  for (const d of driftOf(s)?.thresholds ?? []) out.set(d.expr, d.note);
  return out;
}

export function renderJUnit(input: Summary): string {
  const summary = redactSummary(input);
  const seconds = (summary.duration_ms / 1000).toFixed(3);
  const inv = summary.invariants;
  const thr = summary.thresholds;
  const invFailures = inv.filter((i) => i.status === 'fail').length;
  const invErrors = inv.filter((i) => i.status === 'error').length;
  const invSkipped = inv.filter((i) => i.status === 'not-exercised').length;
  const thrFailures = thr.filter((t) => !t.ok).length;

  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites name="paystorm" tests="${inv.length + thr.length}" failures="${invFailures + thrFailures}" errors="${invErrors}" skipped="${invSkipped}" time="${seconds}">`,
  );
  out.push(
    `  <testsuite name="paystorm.invariants" tests="${inv.length}" failures="${invFailures}" errors="${invErrors}" skipped="${invSkipped}" time="${seconds}" timestamp="${escapeXmlAttr(summary.started_at)}">`,
  );
  out.push('    <properties>');
  const findings = sortedFindings(summary);
  const props: [string, string][] = [
    ['reason', verdictReason(summary)],
    ['runId', summary.runId],
    ['target', summary.target.url],
    ['presentation', summary.target.presentation ?? 'unknown'],
    ['verdict', summary.verdict],
    ['complete', String(summary.complete)],
    ['exitCode', String(summary.exitCode)],
    ['scenarios', summary.scenarios.map((s) => s.name).join(',')],
    // How far each scenario got (`finished`, `cut-short`, `not-started`, `started`), when the summary knows.
    ...summary.scenarios.flatMap((s): [string, string][] => (s.status ? [[`scenario.${s.name}`, s.status]] : [])),
    ...findings.map((f, n): [string, string] => [`finding.${n + 1}.${f.level}.${f.id}`, f.text]),
  ];
  for (const [name, value] of props) out.push(`      <property name="${escapeXmlAttr(name)}" value="${escapeXmlAttr(value)}"/>`);
  out.push('    </properties>');
  for (const i of inv) out.push(...invariantCase(i));
  // The reason first, then findings (warnings first), the load, the rate-limit boundary, the counts.
  const text = [
    verdictReason(summary),
    ...(findings.length ? ['', 'Findings:', ...findings.map((f) => '  ' + findingLine(f))] : []),
    '',
    'Load:',
    ...loadLines(loadFacts(summary)).map((l) => '  ' + l),
    ...(summary.rateBoundary ? ['', 'Rate-limit boundary:', ...rateBoundaryLines(summary.rateBoundary).map((l) => '  ' + l)] : []),
    '',
    verdictLine(summary),
  ];
  out.push(`    <system-out>${escapeXml(text.join('\n'))}</system-out>`);
  out.push('  </testsuite>');
  out.push(`  <testsuite name="paystorm.thresholds" tests="${thr.length}" failures="${thrFailures}" errors="0" skipped="0" time="0">`);
  const why = thresholdNotes(summary);
  for (const t of thr) out.push(...thresholdCase(t, why.get(t.expr), summary.scenarios));
  out.push('  </testsuite>');
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

function invariantCase(i: InvariantResult): string[] {
  const name = `${i.id}: ${i.title}`;
  const head = `    <testcase classname="paystorm.invariants" name="${escapeXmlAttr(name)}" assertions="${i.checked}">`;
  const rules = `rules: ${i.rules.join(', ') || 'none'}; checked ${i.checked}`;
  switch (i.status) {
    case 'pass':
      return [head, `      <system-out>${escapeXml([rules, i.reason].filter(Boolean).join('\n'))}</system-out>`, '    </testcase>'];
    case 'not-exercised':
      return [head, `      <skipped message="${escapeXmlAttr(i.reason ?? 'not exercised')}"/>`, '    </testcase>'];
    case 'error':
      return [
        head,
        `      <error type="oracle-error" message="${escapeXmlAttr(i.reason ?? firstLine(i.error) ?? 'the invariant could not be evaluated')}">${escapeXml(i.error ?? '')}</error>`,
        '    </testcase>',
      ];
    case 'fail': {
      const message = `${i.violations} violation${i.violations === 1 ? '' : 's'}` + (i.reason ? `: ${i.reason}` : '');
      const body = [rules, ...i.examples.map((e, n) => `--- example ${n + 1} of ${i.violations}\n${evidenceText(e)}`)].join('\n');
      return [head, `      <failure type="violation" message="${escapeXmlAttr(message)}">${escapeXml(body)}</failure>`, '    </testcase>'];
    }
  }
}

function thresholdCase(t: ThresholdResult, note?: string, scenarios: readonly { name: string }[] = []): string[] {
  const name = `${t.metric}: ${thresholdLabel(t, scenarios)}`;
  const head = `    <testcase classname="paystorm.thresholds" name="${escapeXmlAttr(name)}">`;
  // Regression and drift thresholds carry their evidence: baseline, limit, confidence or trend test.
  const observed = `observed ${formatValue(t.value)}${note ? `; ${note}` : ''}`;
  if (t.ok) return [head, `      <system-out>${escapeXml(observed)}</system-out>`, '    </testcase>'];
  return [head, `      <failure type="threshold" message="${escapeXmlAttr(`${name} breached: ${observed}`)}">${escapeXml(`${name}\n${observed}`)}</failure>`, '    </testcase>'];
}

function firstLine(s: string | null): string | undefined {
  return s?.split('\n')[0];
}
