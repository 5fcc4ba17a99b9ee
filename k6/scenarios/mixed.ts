/**
 * mixed: the load paystorm's `mixed` scenario applies, for k6 and k6-operator.
 * Open model (constant-arrival-rate) at RATE iterations/s, by default 80% of the
 * per-key limit times the number of test keys; weighted Direct API and hosted creates,
 * polling until settled, partial and full refunds, lists and retrievals.
 *
 *   k6 run -e TARGET=http://localhost:8080 -e KEYS=m1:svc_test_sk_… dist/k6/mixed.js
 *
 * Env: TARGET, KEYS, CARDS, PRESENTATION, RATE, RATE_LIMIT, DURATION (default 5m), MIX,
 * CARD_MIX, REFUND_SHARE, REFUND_PATH, POLL_INTERVAL, SETTLE_MAX_WAIT, ALLOW_LIVE. See docs/k6.md.
 */
import type { Options } from 'k6/options';
import { parseDuration } from '../lib/config.ts';
import { arrivalScenario, baseOptions, mixedIteration, mixedSetup, mixedTeardown, type SetupData } from '../lib/mixed.ts';
import { setScript } from '../lib/record.ts';

setScript('mixed');

export const options: Options = baseOptions({ mixed: arrivalScenario('mixed', parseDuration(__ENV, 'DURATION', '5m')) });

export function setup(): SetupData {
  return mixedSetup('mixed');
}

/** Also after a graceful stop (Ctrl-C, abort): the end marker says whether the plan ran. */
export function teardown(data: SetupData): void {
  mixedTeardown(options, data);
}

export function mixed(data: SetupData): void {
  mixedIteration(data);
}

export default mixed;
