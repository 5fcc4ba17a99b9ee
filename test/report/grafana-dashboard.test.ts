/**
 * docs/grafana/paystorm.json: every query (panels, annotations, variables) names only series
 * the metrics endpoint exports and only labels those series carry; it covers what the docs say
 * it shows; and, when promtool is installed (Debian's prometheus), each query parses as PromQL.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunMetricsExporter, SERIES, type SeriesName } from '../../src/report/openmetrics/index.ts';
import { parseOpenMetrics } from './openmetrics-text.ts';

const DASHBOARD = join(import.meta.dirname, '../../docs/grafana/paystorm.json');

interface Target {
  expr?: string;
}
interface Panel {
  type: string;
  title: string;
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  panels: Panel[];
  annotations: { list: { name: string; expr?: string }[] };
  templating: { list: { name: string; definition?: string }[] };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);

/** Every PromQL expression of the dashboard, with where it is. */
function queries(): { where: string; expr: string }[] {
  return [
    ...panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr ?? '' }))),
    ...dashboard.annotations.list.filter((a) => a.expr !== undefined).map((a) => ({ where: `annotation "${a.name}"`, expr: a.expr! })),
  ];
}

/** Grafana's variables replaced by values PromQL accepts. */
const withoutVariables = (expr: string) =>
  expr
    .replace(/\$__(rate_interval|interval|range)\b/g, '1m')
    .replace(/\$\{?\w+\}?/g, '.*');

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/**
 * The metric names and label names a PromQL expression uses. Strings, ranges and numbers are
 * skipped; a name followed by `(` is a function or an aggregation; label names come from
 * matchers `{name op "value"}` and from by/without/on/ignoring clauses.
 */
function namesIn(expr: string): { metrics: string[]; labels: string[] } {
  const text = withoutVariables(expr);
  const labels: string[] = [];
  const metrics: string[] = [];
  const token = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\[[^\]]*\]|\{([^}]*)\}|\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?[a-z]*|([a-zA-Z_:][a-zA-Z0-9_:]*)|[^\s]/g;
  for (const m of text.matchAll(token)) {
    const [, matchers, clause, clauseLabels, name] = m;
    // A function or an aggregation: `name(`, or `sum by (…) (`.
    const call = name !== undefined && /^\s*(\(|(by|without)\s*\()/.test(text.slice(m.index + name.length)) ? true : undefined;
    if (matchers !== undefined) {
      for (const part of matchers.replace(/"(?:[^"\\]|\\.)*"/g, '""').split(',')) {
        const label = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/.exec(part);
        if (part.trim()) {
          expect(label, `matcher "${part}" in ${expr}`).not.toBeNull();
          labels.push(label![1]);
        }
      }
    } else if (clause !== undefined) {
      labels.push(...clauseLabels.split(',').map((l) => l.trim()).filter(Boolean));
    } else if (name !== undefined && call === undefined && !KEYWORDS.has(name.toLowerCase())) {
      metrics.push(name);
    }
  }
  return { metrics, labels };
}

/** What the endpoint exports: its sample names, each with the labels it carries, read from its own exposition. */
async function exported(): Promise<Map<string, Set<string>>> {
  const families = parseOpenMetrics(await new RunMetricsExporter().series.registry.metrics());
  const names = new Map<string, Set<string>>();
  const suffixes: Record<string, string[]> = { counter: ['_total'], gauge: [''], histogram: ['_bucket', '_sum', '_count'] };
  for (const f of families.values()) {
    const spec = SERIES[(f.type === 'counter' ? `${f.name}_total` : f.name) as SeriesName];
    expect(spec, f.name).toBeDefined();
    for (const suffix of suffixes[f.type]) {
      // Prometheus adds job and instance to every series it scrapes; a bucket has le.
      names.set(f.name + suffix, new Set([...spec.labels, 'job', 'instance', ...(suffix === '_bucket' ? ['le'] : [])]));
    }
  }
  return names;
}

describe('the Grafana dashboard (docs/grafana/paystorm.json)', () => {
  it('its queries read namesIn right (the reader this test relies on)', () => {
    expect(namesIn('histogram_quantile(0.99, sum by (le, op) (rate(paystorm_request_duration_seconds_bucket{instance=~"$instance", op!="x,y"}[$__rate_interval])))')).toEqual({
      metrics: ['paystorm_request_duration_seconds_bucket'],
      labels: ['le', 'op', 'instance', 'op'],
    });
    expect(namesIn('sum(rate(a_total[5m] offset 1h)) / on (job) group_left b > 0.5 and c')).toEqual({ metrics: ['a_total', 'b', 'c'], labels: ['job'] });
  });

  it('every query names only series the endpoint exports, with only their labels', async () => {
    const names = await exported();
    const all = queries();
    expect(all.length).toBeGreaterThan(10);
    for (const { where, expr } of all) {
      const { metrics, labels } = namesIn(expr);
      expect(metrics.length, `${where}: ${expr} names no series`).toBeGreaterThan(0);
      for (const m of metrics) expect(names.has(m), `${where}: ${m} is not exported (${[...names.keys()].join(', ')})`).toBe(true);
      const allowed = new Set(metrics.flatMap((m) => [...(names.get(m) ?? [])]));
      for (const l of labels) expect(allowed.has(l), `${where}: label ${l} is on none of ${metrics.join(', ')}`).toBe(true);
    }
    // The run-endpoint variable lists the instances of an exported series.
    const variable = dashboard.templating.list.find((v) => v.name === 'instance')!;
    const [, series, label] = /^label_values\((\w+),\s*(\w+)\)$/.exec(variable.definition ?? '')!;
    expect(names.get(series)?.has(label)).toBe(true);
  });

  it('shows rate and 429s, latency percentiles by op, errors, faults as annotations, and violations', () => {
    const exprs = (title: RegExp) => panels.filter((p) => title.test(p.title)).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''));
    expect(exprs(/^Request rate/).join()).toMatch(/rate\(paystorm_requests_total/);
    expect(exprs(/429/).join()).toMatch(/paystorm_rate_limited_total/);
    for (const q of ['0.5', '0.9', '0.99']) expect(exprs(/latency by operation/).join(), q).toContain(`histogram_quantile(${q}, sum by (le, op)`);
    expect(exprs(/error|5xx/i).join()).toMatch(/paystorm_connection_errors_total[\s\S]*status_class=~"5xx\|failure"/);
    expect(exprs(/^Violations/).join()).toMatch(/sum by \(invariant\) \(paystorm_violations_total/);
    const faults = dashboard.annotations.list.find((a) => a.name === 'Faults');
    expect(faults?.expr).toMatch(/paystorm_faults_active/);
    // Every series the endpoint exports is on the dashboard somewhere.
    const used = new Set(queries().flatMap((q) => namesIn(q.expr).metrics));
    for (const name of Object.keys(SERIES)) expect([...used].some((u) => u.startsWith(name)), name).toBe(true);
  });

  it('each query parses as PromQL (promtool check rules)', (ctx) => {
    const promtool = ['/usr/bin/promtool', process.env.PROMETHEUS_BIN && join(process.env.PROMETHEUS_BIN, '../promtool')].find((p): p is string => !!p && existsSync(p));
    if (!promtool) {
      console.log('skipped: no promtool (Debian package prometheus) to parse the dashboard\'s PromQL');
      ctx.skip();
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-grafana-'));
    try {
      const rules = join(dir, 'rules.yml');
      const lines = ['groups:', '  - name: dashboard', '    rules:'];
      queries().forEach((q, i) => lines.push(`      - record: dashboard:query_${i}`, `        expr: ${JSON.stringify(withoutVariables(q.expr))}`));
      writeFileSync(rules, lines.join('\n') + '\n');
      const r = spawnSync(promtool, ['check', 'rules', rules], { encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`SUCCESS: ${queries().length} rules found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
