/** The registry: one import per invariant file. */
import type { Invariant } from '../types.ts';
import authMalformedHeader from './auth-malformed-header.ts';
import authUnknownKey from './auth-unknown-key.ts';
import authUnknownPrefix from './auth-unknown-prefix.ts';
import forbiddenIsNotPermitted from './forbidden-is-not-permitted.ts';
import liveKeyRejectsTestCards from './live-key-rejects-test-cards.ts';
import livemodeMatchesKey from './livemode-matches-key.ts';
import merchantIsolation from './merchant-isolation.ts';
import modeIsolation from './mode-isolation.ts';
import noRateHeadersOn401 from './no-rate-headers-on-401.ts';
import rateBurstCap from './rate-burst-cap.ts';
import rateHeadersPresent from './rate-headers-present.ts';
import rateLimitPerKey from './rate-limit-per-key.ts';
import rateLimitedResponse from './rate-limited-response.ts';
import rateRemaining from './rate-remaining.ts';
import rateResetValue from './rate-reset-value.ts';
import rateWindowCap from './rate-window-cap.ts';
import rateWindowFixed from './rate-window-fixed.ts';
import retryAfterHonest from './retry-after-honest.ts';

export const INVARIANTS: readonly Invariant[] = [
  authMalformedHeader,
  authUnknownKey,
  authUnknownPrefix,
  forbiddenIsNotPermitted,
  liveKeyRejectsTestCards,
  livemodeMatchesKey,
  merchantIsolation,
  modeIsolation,
  noRateHeadersOn401,
  rateBurstCap,
  rateHeadersPresent,
  rateLimitPerKey,
  rateLimitedResponse,
  rateRemaining,
  rateResetValue,
  rateWindowCap,
  rateWindowFixed,
  retryAfterHonest,
];
