/**
 * k6 checks named after rule ids of rules.md (`<RULE-ID>: <what holds>`), so a failed
 * check in k6's summary points at the rule. Checks feed k6's `checks` rate, which the
 * thresholds judge.
 */
import { check } from 'k6';

/** Records one check named `name` with the outcome `ok`; returns `ok`. */
export function expect(name: string, ok: boolean, tags?: Record<string, string>): boolean {
  return check(ok, { [name]: (v: boolean) => v }, tags);
}
