/**
 * A scenario's default thresholds judge that scenario's own traffic. `mixed` says
 * `http_req_failed: rate<0.01` about its steady load; the chaos phase fails requests on purpose
 * (FT-1..5 judge those), so judging mixed's threshold over the chaos phase's requests would
 * fail a good service on a busy machine. Thresholds the user gives (`--threshold`, config) keep
 * k6's meaning: the whole run.
 *
 * One metrics aggregator per distinct set of scenarios sharing a default expression, fed in the
 * same pass as the run's own metrics; each exchange goes to the scopes holding its scenario,
 * every other record (webhooks, faults) to all of them.
 */
import type { RunMetrics } from '../spec/index.ts';
import type { HistoryRecord } from '../history/index.ts';
import { replacedByUser } from './thresholds.ts';

export interface MetricsSink {
  add(rec: HistoryRecord): void;
  snapshot(): RunMetrics;
}

export interface ScopedExpr {
  expr: string;
  /** The scenarios whose default it is. */
  scenarios: string[];
}

export interface ThresholdScope {
  scenarios: Set<string>;
  exprs: string[];
  metrics: MetricsSink;
}

/** Groups default expressions by the set of scenarios declaring them (user expressions stay global). */
export function thresholdScopes(
  defaults: readonly { scenario: string; exprs: readonly string[] }[],
  userExprs: ReadonlySet<string>,
  newMetrics: () => MetricsSink,
): { scopes: ThresholdScope[]; scoped: ScopedExpr[] } {
  const byExpr = new Map<string, Set<string>>();
  const replaced = replacedByUser(userExprs);
  for (const d of defaults) {
    for (const e of d.exprs) {
      if (replaced(e)) continue; // the user asked for it (or another limit) over the whole run
      if (!byExpr.has(e)) byExpr.set(e, new Set());
      byExpr.get(e)!.add(d.scenario);
    }
  }
  const scopes = new Map<string, ThresholdScope>();
  const scoped: ScopedExpr[] = [];
  for (const [expr, set] of byExpr) {
    const names = [...set].sort();
    const k = names.join('\u0000');
    if (!scopes.has(k)) scopes.set(k, { scenarios: new Set(names), exprs: [], metrics: newMetrics() });
    scopes.get(k)!.exprs.push(expr);
    scoped.push({ expr, scenarios: names });
  }
  return { scopes: [...scopes.values()], scoped };
}

/** Feeds one record to the scopes it belongs to. */
export function feedScopes(scopes: readonly ThresholdScope[], rec: HistoryRecord): void {
  if (scopes.length === 0) return;
  if (rec.kind === 'exchange') {
    for (const s of scopes) if (s.scenarios.has(rec.scenario)) s.metrics.add(rec);
  } else {
    for (const s of scopes) s.metrics.add(rec);
  }
}
