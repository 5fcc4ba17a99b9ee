/** The registry: one import per invariant file. */
import type { Invariant } from '../types.ts';
import authMalformedHeader from './auth-malformed-header.ts';
import authUnknownKey from './auth-unknown-key.ts';
import authUnknownPrefix from './auth-unknown-prefix.ts';
import duplicateRequestNoObject from './duplicate-request-no-object.ts';
import forbiddenIsNotPermitted from './forbidden-is-not-permitted.ts';
import idemDifferentBody from './idem-different-body.ts';
import idemErrorsNotKept from './idem-errors-not-kept.ts';
import idemInFlight from './idem-in-flight.ts';
import idemKeyLength from './idem-key-length.ts';
import idemKeyRequired from './idem-key-required.ts';
import idemReplay from './idem-replay.ts';
import idemScopedPerKey from './idem-scoped-per-key.ts';
import idemScopedPerOperation from './idem-scoped-per-operation.ts';
import idemSingleObject from './idem-single-object.ts';
import liveKeyRejectsTestCards from './live-key-rejects-test-cards.ts';
import livemodeMatchesKey from './livemode-matches-key.ts';
import merchantIsolation from './merchant-isolation.ts';
import merchantReferenceNoDedup from './merchant-reference-no-dedup.ts';
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
import refundIdempotency from './refund-idempotency.ts';
import retryAfterHonest from './retry-after-honest.ts';
import retryNoDoubleCharge from './retry-no-double-charge.ts';

export const INVARIANTS: readonly Invariant[] = [
  authMalformedHeader,
  authUnknownKey,
  authUnknownPrefix,
  duplicateRequestNoObject,
  forbiddenIsNotPermitted,
  idemDifferentBody,
  idemErrorsNotKept,
  idemInFlight,
  idemKeyLength,
  idemKeyRequired,
  idemReplay,
  idemScopedPerKey,
  idemScopedPerOperation,
  idemSingleObject,
  liveKeyRejectsTestCards,
  livemodeMatchesKey,
  merchantIsolation,
  merchantReferenceNoDedup,
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
  refundIdempotency,
  retryAfterHonest,
  retryNoDoubleCharge,
];
