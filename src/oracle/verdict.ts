/**
 * The run's verdict and exit code. Order of precedence:
 * 1. an invariant failed or threw            -> fail, exit 1 (a violation found is real even in an interrupted run)
 * 2. the run was interrupted                 -> fail, exit 130 (incomplete: what was not run cannot pass)
 * 3. a rule a selected scenario declares was not exercised by any invariant citing it
 *    (observe-only rules excepted: the target decides whether they happen), or nothing
 *    at all was checked                      -> fail, exit 1
 * 4. a threshold was breached                -> fail, exit 2
 * 5. otherwise                               -> pass, exit 0
 */
import { EXIT, ruleInfo, type InvariantResult, type ThresholdResult } from '../spec/index.ts';

export interface VerdictInput {
  invariants: readonly InvariantResult[];
  thresholds: readonly ThresholdResult[];
  /** Rules the selected scenarios declare. */
  declaredRules: readonly string[];
  interrupted: boolean;
}

export interface Verdict {
  verdict: 'pass' | 'fail';
  exitCode: number;
  /** Why, one line each (empty on a pass). */
  reasons: string[];
}

/** Declared rules that every invariant citing them left not-exercised. */
export function unexercisedDeclaredRules(invariants: readonly InvariantResult[], declaredRules: readonly string[]): string[] {
  const out: string[] = [];
  for (const rule of new Set(declaredRules)) {
    if (ruleInfo(rule)?.kind === 'observe') continue;
    const citing = invariants.filter((i) => i.rules.includes(rule));
    if (citing.length > 0 && citing.every((i) => i.status === 'not-exercised')) out.push(rule);
  }
  return out.sort();
}

export function verdictOf(input: VerdictInput): Verdict {
  const { invariants, thresholds, declaredRules, interrupted } = input;
  const failed = invariants.filter((i) => i.status === 'fail');
  const errored = invariants.filter((i) => i.status === 'error');
  if (failed.length || errored.length) {
    const reasons = [
      ...failed.map((i) => `${i.id} (${i.rules.join(', ')}) failed: ${i.reason ?? ''}`.trim()),
      ...errored.map((i) => `${i.id} (${i.rules.join(', ')}) could not be judged: it threw an exception`),
    ];
    return { verdict: 'fail', exitCode: EXIT.violation, reasons };
  }
  if (interrupted) return { verdict: 'fail', exitCode: EXIT.interrupted, reasons: ['the run was interrupted before its scenarios finished; an incomplete run cannot pass'] };
  const reasons: string[] = [];
  const unexercised = unexercisedDeclaredRules(invariants, declaredRules);
  for (const rule of unexercised) {
    const why = invariants.filter((i) => i.rules.includes(rule)).map((i) => `${i.id}: ${i.reason ?? 'not exercised'}`);
    reasons.push(`${rule} is declared by a selected scenario but was not exercised (${why.join('; ')})`);
  }
  if (invariants.length === 0 || invariants.every((i) => i.checked === 0)) reasons.push('nothing was checked: the history held nothing any invariant could judge');
  if (reasons.length) return { verdict: 'fail', exitCode: EXIT.violation, reasons };
  const breached = thresholds.filter((t) => !t.ok);
  if (breached.length) return { verdict: 'fail', exitCode: EXIT.threshold, reasons: breached.map((t) => `threshold ${t.expr} breached (value ${t.value})`) };
  return { verdict: 'pass', exitCode: EXIT.pass, reasons: [] };
}
