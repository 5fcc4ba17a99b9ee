/**
 * k6 checks named after rule ids of rules.md (`<RULE-ID>: <what holds>`), so a failed check in
 * k6's summary points at the rule. Checks feed k6's `checks` rate, which the thresholds judge.
 *
 * k6 writes one `checks` point (with a time of its own) to `--out json` per check() call. The
 * load scripts (mixed, soak) check every answer of a long run against a dozen rules, so
 * `foldChecks()` (lib/mixed.ts) writes the checks made on one answer as ONE check:
 *
 * - named `<op>: <RULE-ID> <RULE-ID> …`, the operation and the rules checked on its answer (in
 *   the order checked), e.g. `create: RL-4 ERR-5 SEC-2 PAY-1 PAY-6 PAY-13 PAY-9 AUTH-5 PAY-11`;
 *   it passes when every one held;
 * - when one did not, that check fails, and each rule that failed is also written as a failing
 *   check of its own name (`PAY-8: amount and currency are the ones sent and never change`), so
 *   k6's end-of-test summary lists which kind of answer failed how often, and why.
 *
 * The answer's checks are written when the script next sends a request, sleeps or ends the
 * iteration (flushChecks; also when the next answer comes, observe() in api.ts), so they reach
 * k6 before anything that can be interrupted. A check made with no answer open (setup's
 * detection, a flow's verdict after the last answer was written) is written on its own.
 * Without foldChecks() (the idempotency and rate-limit scripts: a few hundred answers, each
 * check a rule of their own) every check is written on its own, as `<RULE-ID>: <what holds>`.
 */
import { check } from 'k6';

const RULE_ID = /^([A-Z]+-\d+): /;

interface OpenChecks {
  op: string;
  /** Rule ids checked on the answer, first-seen order. */
  ids: string[];
  /** Names of the checks that failed, once each. */
  failed: string[];
}

let folding = false;
let open: OpenChecks | null = null;

/** Checks made on one answer are written as one check (the load scripts: see above). */
export function foldChecks(): void {
  folding = true;
}

function writeCheck(name: string, ok: boolean): boolean {
  return check(ok, { [name]: (v: boolean) => v });
}

/** Records one check named `name` with the outcome `ok`; returns `ok`. */
export function expect(name: string, ok: boolean): boolean {
  if (open === null) return writeCheck(name, ok);
  const id = RULE_ID.exec(name)?.[1] ?? name;
  if (open.ids.indexOf(id) < 0) open.ids.push(id);
  if (!ok && open.failed.indexOf(name) < 0) open.failed.push(name);
  return ok;
}

/** The checks of a new answer to `op` begin (when folding): the ones still open are written first. */
export function answerChecks(op: string): void {
  flushChecks();
  if (folding) open = { op, ids: [], failed: [] };
}

/** Writes the open answer's checks (one folded check, and each failed rule's own), if any. */
export function flushChecks(): void {
  const o = open;
  if (o === null) return;
  open = null;
  if (o.ids.length === 0) return;
  writeCheck(`${o.op}: ${o.ids.join(' ')}`, o.failed.length === 0);
  for (const name of o.failed) writeCheck(name, false);
}
