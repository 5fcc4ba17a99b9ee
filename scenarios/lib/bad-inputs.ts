/**
 * Drives the catalog of bad inputs (src/spec/bad-inputs.ts, written by the reference-service
 * engineer) through `raw`, recording each case's expectation in `sent.badInput`.
 * Until the catalog lands this sends nothing and declares no rule.
 */
import type { ScenarioContext } from '../../src/spec/scenario.ts';
import type { Api } from './common.ts';

/** Rules the catalog's cases exercise. */
export const BAD_INPUT_RULES: string[] = [];

export async function runBadInputs(ctx: ScenarioContext, _apis: Api[]): Promise<void> {
  ctx.log('auth-and-input: the bad-input catalog (src/spec/bad-inputs.ts) is not available yet');
}
