/**
 * Every built-in scenario, in the order the default suite runs them: cheap probes first,
 * the rate-limit scenario late (it exhausts its own key), webhooks last of the suite (its
 * wait also lets the deliveries of earlier scenarios arrive), then the long ones. The short
 * chaos phase runs before them, so the deliveries of the payments it stranded and settled land
 * within the webhooks scenario's wait.
 */
import type { Scenario } from '../src/spec/scenario.ts';
import authAndInput from './auth-and-input.ts';
import mixed from './mixed.ts';
import idempotency from './idempotency.ts';
import refunds from './refunds.ts';
import lists from './lists.ts';
import flows from './flows.ts';
import rateLimit from './rate-limit.ts';
import webhooks from './webhooks.ts';
import soak from './soak.ts';
import chaos, { chaosShort } from './chaos.ts';

export const SCENARIOS: readonly Scenario[] = Object.freeze([authAndInput, mixed, idempotency, refunds, lists, flows, chaosShort, rateLimit, webhooks, soak, chaos]);

export const DEFAULT_SUITE: readonly Scenario[] = Object.freeze(SCENARIOS.filter((s) => s.defaultSuite));

export function scenarioByName(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

export const SCENARIO_NAMES: readonly string[] = SCENARIOS.map((s) => s.name);
