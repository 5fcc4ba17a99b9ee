/**
 * The run's verdict and exit code. Order of precedence:
 * 0. no invariant was judged (the judge ran out of memory) -> fail, exit 1 (a run not judged never passes)
 * 1. an invariant failed or threw            -> fail, exit 1 (a violation found is real even in an interrupted run)
 * 2. the run was interrupted                 -> fail, exit 130 (incomplete: what was not run cannot pass)
 *    a scenario stopped with an error        -> fail, exit 1 (likewise; a cap that stopped the run is judged on what it measured)
 * 3. a rule a selected scenario declares was not exercised by any invariant citing it
 *    (observe-only rules excepted: the target decides whether they happen), or nothing
 *    at all was checked                      -> fail, exit 1 (when every scenario declaring
 *    the rule never started or was cut short, e.g. by a cap, the reason says so)
 * 4. a threshold was breached                -> fail, exit 2
 * 5. otherwise                               -> pass, exit 0
 */
import { EXIT, ruleInfo, type InvariantResult, type ThresholdResult } from '../spec/index.ts';
import type { ScenarioProgress } from '../history/index.ts';
import { scenarioRunSentence, unrunDeclaring } from './lib/scenario-runs.ts';

export interface VerdictInput {
  invariants: readonly InvariantResult[];
  thresholds: readonly ThresholdResult[];
  /** Rules the selected scenarios declare. */
  declaredRules: readonly string[];
  interrupted: boolean;
  /** The end record's reason when a scenario threw before it finished (`scenario-error: <names>`). */
  scenarioError?: string;
  /** How far each selected scenario got (judge's `scenarios`): the reason names those that did not finish. */
  scenarios?: readonly ScenarioProgress[];
  /** Why no invariant was judged (judge.ts `unjudged`). */
  unjudged?: string;
}

export interface Verdict {
  verdict: 'pass' | 'fail';
  exitCode: number;
  /** Why, one line each (empty on a pass). */
  reasons: string[];
  /** The verdict's reason in one sentence, e.g. `failed: 2 invariants violated (a, b)` (summary.json `reason`). */
  reason: string;
}

const plural = (n: number, one: string, many = one + 's') => `${n} ${n === 1 ? one : many}`;
const trimStop = (s: string) => s.trim().replace(/[.\s]+$/, '');

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
  if (input.unjudged !== undefined) {
    const why = input.unjudged;
    return { verdict: 'fail', exitCode: EXIT.violation, reasons: [why], reason: `failed: ${why}` };
  }
  if (failed.length || errored.length) {
    const reasons = [
      ...failed.map((i) => `${i.id} (${i.rules.join(', ')}) failed: ${i.reason ?? ''}`.trim()),
      ...errored.map((i) => `${i.id} (${i.rules.join(', ')}) could not be judged: it threw an exception`),
    ];
    const parts = [
      failed.length ? `${plural(failed.length, 'invariant')} violated (${failed.map((i) => i.id).join(', ')})` : '',
      errored.length ? `${plural(errored.length, 'invariant')} could not be judged because the check threw (${errored.map((i) => i.id).join(', ')})` : '',
    ].filter(Boolean);
    return { verdict: 'fail', exitCode: EXIT.violation, reasons, reason: `failed: ${parts.join('; ')}` };
  }
  if (interrupted) {
    // Which scenarios ran to their end, were cut short, never started: what the report's reader needs first.
    const how = scenarioRunSentence(input.scenarios ?? []);
    const why = `the run was interrupted before its scenarios finished${how ? ` (${how})` : ''}; an incomplete run cannot pass`;
    return { verdict: 'fail', exitCode: EXIT.interrupted, reasons: [why], reason: `failed: ${why}` };
  }
  if (input.scenarioError !== undefined) {
    const names = input.scenarioError.replace(/^.*?scenario-error:\s*/, '');
    const why = `a scenario stopped with an error before it finished (${names}; its message is on stderr); an incomplete run cannot pass`;
    return { verdict: 'fail', exitCode: EXIT.violation, reasons: [why], reason: `failed: ${why}` };
  }
  const reasons: string[] = [];
  const sentences: string[] = [];
  const unexercised = unexercisedDeclaredRules(invariants, declaredRules);
  for (const rule of unexercised) {
    const citing = invariants.filter((i) => i.rules.includes(rule));
    const why = citing.map((i) => `${i.id}: ${i.reason ?? 'not exercised'}`);
    reasons.push(`${rule} is declared by a selected scenario but was not exercised (${why.join('; ')})`);
    // Declared only by scenarios that never started or were cut short: that is why, not the service.
    const unrun = unrunDeclaring([rule], input.scenarios ?? []);
    const because = unrun ?? citing.map((i) => trimStop(i.reason ?? '')).filter(Boolean)[0];
    sentences.push(`${rule} was not exercised` + (because ? ` because ${because}` : ` (${citing.map((i) => i.id).join(', ')} had nothing to judge)`));
  }
  if (invariants.length === 0 || invariants.every((i) => i.checked === 0)) {
    reasons.push('nothing was checked: the history held nothing any invariant could judge');
    sentences.push('nothing was checked because the history held nothing any invariant could judge');
  }
  if (reasons.length) {
    // One sentence: the first rule with its cause, then how many more.
    const more = sentences.length > 1 ? ` (and ${plural(sentences.length - 1, 'more rule')} not exercised: ${unexercised.slice(1).join(', ') || 'see invariants'})` : '';
    return { verdict: 'fail', exitCode: EXIT.violation, reasons, reason: `failed: ${sentences[0]}${more}` };
  }
  const breached = thresholds.filter((t) => !t.ok);
  if (breached.length) {
    const first = breached[0];
    const more = breached.length > 1 ? ` and ${plural(breached.length - 1, 'more')}` : '';
    return {
      verdict: 'fail',
      exitCode: EXIT.threshold,
      reasons: breached.map((t) => `threshold ${t.expr} breached (value ${t.value})`),
      reason: `failed: ${plural(breached.length, 'threshold')} breached (${first.metric} ${first.expr.startsWith(first.metric) ? first.expr.slice(first.metric.length).replace(/^:\s*/, '') : first.expr}, observed ${first.value === null ? 'no data' : Number(first.value.toPrecision(4))}${more})`,
    };
  }
  const judged = invariants.filter((i) => i.status === 'pass').length;
  return {
    verdict: 'pass',
    exitCode: EXIT.pass,
    reasons: [],
    reason: `passed: ${plural(judged, 'invariant')} held` + (thresholds.length ? ` and ${thresholds.length === 1 ? 'the threshold was' : `all ${thresholds.length} thresholds were`} met` : ''),
  };
}
