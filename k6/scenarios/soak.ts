/**
 * soak: the mixed load at ~80% of the keys' limits for DURATION (default 30m). Same
 * iteration as mixed.ts; adds abort-on-fail guards so a broken target ends the soak
 * early instead of hammering it for half an hour.
 *
 *   k6 run -e TARGET=… -e KEYS=… -e DURATION=2h dist/k6/soak.js
 */
import type { Options } from 'k6/options';
import { parseDuration } from '../lib/config.ts';
import { arrivalScenario, baseOptions, mixedIteration, mixedSetup, mixedTeardown, type SetupData } from '../lib/mixed.ts';
import { setScript } from '../lib/record.ts';

setScript('soak');
import { loadThresholds, metricKey } from '../lib/thresholds.ts';

const thresholds = loadThresholds();
// Abort when more than 5% fail for a minute (the 1% pass criterion still decides the verdict).
thresholds[metricKey('http_req_failed')] = ['rate<0.01', { threshold: 'rate<0.05', abortOnFail: true, delayAbortEval: '1m' }];
thresholds[metricKey('rate_limited')] = ['rate<0.01', { threshold: 'rate<0.2', abortOnFail: true, delayAbortEval: '2m' }];
thresholds[metricKey('settle_time')] = ['p(95)<10000', 'p(99)<20000'];

export const options: Options = baseOptions({ soak: arrivalScenario('soak', parseDuration(__ENV, 'DURATION', '30m')) }, thresholds);

export function setup(): SetupData {
  return mixedSetup('soak');
}

/** Also after a graceful stop (Ctrl-C, abort): the end marker says whether the plan ran. */
export function teardown(data: SetupData): void {
  mixedTeardown(options, data);
}

export function soak(data: SetupData): void {
  mixedIteration(data);
}

export default soak;
