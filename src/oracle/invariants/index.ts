/** The registry: one import per invariant file. */
import type { Invariant } from '../types.ts';
import amountMinimum from './amount-minimum.ts';
import amountRefundableConsistent from './amount-refundable-consistent.ts';
import authMalformedHeader from './auth-malformed-header.ts';
import authUnknownKey from './auth-unknown-key.ts';
import authUnknownPrefix from './auth-unknown-prefix.ts';
import behaviourUnderFaults from './behaviour-under-faults.ts';
import cardErrorCode from './card-error-code.ts';
import createReturnsPayment from './create-returns-payment.ts';
import createStatusAllowed from './create-status-allowed.ts';
import createdPaymentsRetrievable from './created-payments-retrievable.ts';
import declineNotHttpError from './decline-not-http-error.ts';
import duplicateRequestNoObject from './duplicate-request-no-object.ts';
import errorBodyComplete from './error-body-complete.ts';
import errorCodeTable from './error-code-table.ts';
import eventMatchesType from './event-matches-type.ts';
import failedDeliveryRetried from './failed-delivery-retried.ts';
import failureReason from './failure-reason.ts';
import faultResponsesWellFormed from './fault-responses-well-formed.ts';
import fieldConstraints from './field-constraints.ts';
import forbiddenIsNotPermitted from './forbidden-is-not-permitted.ts';
import hosted3dsStaysRequiresAction from './hosted-3ds-stays-requires-action.ts';
import hostedCreateShape from './hosted-create-shape.ts';
import hostedTestCards from './hosted-test-cards.ts';
import idemDifferentBody from './idem-different-body.ts';
import idemErrorsNotKept from './idem-errors-not-kept.ts';
import idemInFlight from './idem-in-flight.ts';
import idemKeyLength from './idem-key-length.ts';
import idemKeyRequired from './idem-key-required.ts';
import idemReplay from './idem-replay.ts';
import idemScopedPerKey from './idem-scoped-per-key.ts';
import idemScopedPerOperation from './idem-scoped-per-operation.ts';
import idemSingleObject from './idem-single-object.ts';
import idemNoGhostObject from './idem-no-ghost-object.ts';
import jsonAndIntegers from './json-and-integers.ts';
import listCreatedBounds from './list-created-bounds.ts';
import listEnvelope from './list-envelope.ts';
import listFiltersBeforePagination from './list-filters-before-pagination.ts';
import listLimit from './list-limit.ts';
import listModeIsolation from './list-mode-isolation.ts';
import listNewestFirst from './list-newest-first.ts';
import listStatusFilter from './list-status-filter.ts';
import listUnknownCursor from './list-unknown-cursor.ts';
import listWalkExactlyOnce from './list-walk-exactly-once.ts';
import liveKeyRejectsTestCards from './live-key-rejects-test-cards.ts';
import livemodeMatchesKey from './livemode-matches-key.ts';
import merchantIsolation from './merchant-isolation.ts';
import merchantReferenceNoDedup from './merchant-reference-no-dedup.ts';
import missingFieldNamed from './missing-field-named.ts';
import modeIsolation from './mode-isolation.ts';
import nextActionIffRequiresAction from './next-action-iff-requires-action.ts';
import noCardDataReturned from './no-card-data-returned.ts';
import noEventForNonTerminal from './no-event-for-non-terminal.ts';
import noRateHeadersOn401 from './no-rate-headers-on-401.ts';
import noSecretEcho from './no-secret-echo.ts';
import nonJsonBody from './non-json-body.ts';
import overRefundRefused from './over-refund-refused.ts';
import paymentEchoesInput from './payment-echoes-input.ts';
import rateBurstCap from './rate-burst-cap.ts';
import rateHeadersPresent from './rate-headers-present.ts';
import rateLimitPerKey from './rate-limit-per-key.ts';
import rateLimitedResponse from './rate-limited-response.ts';
import rateNoEarly429 from './rate-no-early-429.ts';
import rateRemaining from './rate-remaining.ts';
import rateResetValue from './rate-reset-value.ts';
import rateWindowCap from './rate-window-cap.ts';
import rateWindowFixed from './rate-window-fixed.ts';
import redirectUrlByIntegration from './redirect-url-by-integration.ts';
import refundAccepted from './refund-accepted.ts';
import refundIdempotency from './refund-idempotency.ts';
import refundPathServed from './refund-path-served.ts';
import refundSettles from './refund-settles.ts';
import badRefundNoEffect from './bad-refund-no-effect.ts';
import refundRequiresSucceeded from './refund-requires-succeeded.ts';
import refundedAmountSum from './refunded-amount-sum.ts';
import refundedAtWhenFull from './refunded-at-when-full.ts';
import refundsWithinAmount from './refunds-within-amount.ts';
import retriesKeepEventId from './retries-keep-event-id.ts';
import retryAfterHonest from './retry-after-honest.ts';
import retryNoDoubleCharge from './retry-no-double-charge.ts';
import sandboxAcceptsCardDetails from './sandbox-accepts-card-details.ts';
import sandboxCardOutcome from './sandbox-card-outcome.ts';
import sandboxDeclineAsync from './sandbox-decline-async.ts';
import serverErrors from './server-errors.ts';
import settlesAfterHeal from './settles-after-heal.ts';
import settlesWithinBound from './settles-within-bound.ts';
import statusTimestamps from './status-timestamps.ts';
import statusTransitions from './status-transitions.ts';
import succeededHasCard from './succeeded-has-card.ts';
import terminalIsFinal from './terminal-is-final.ts';
import terminalPaymentEvent from './terminal-payment-event.ts';
import terminalRefundEvent from './terminal-refund-event.ts';
import testEventsTestEndpoints from './test-events-test-endpoints.ts';
import threeDsOutcome from './three-ds-outcome.ts';
import unknownPayment404 from './unknown-payment-404.ts';
import webhookEnvelope from './webhook-envelope.ts';
import webhookSignature from './webhook-signature.ts';
import webhookTimestampFresh from './webhook-timestamp-fresh.ts';

export const INVARIANTS: readonly Invariant[] = [
  amountMinimum,
  amountRefundableConsistent,
  authMalformedHeader,
  authUnknownKey,
  authUnknownPrefix,
  behaviourUnderFaults,
  cardErrorCode,
  createReturnsPayment,
  createStatusAllowed,
  createdPaymentsRetrievable,
  declineNotHttpError,
  duplicateRequestNoObject,
  errorBodyComplete,
  errorCodeTable,
  eventMatchesType,
  failedDeliveryRetried,
  failureReason,
  faultResponsesWellFormed,
  fieldConstraints,
  forbiddenIsNotPermitted,
  hosted3dsStaysRequiresAction,
  hostedCreateShape,
  hostedTestCards,
  idemDifferentBody,
  idemErrorsNotKept,
  idemInFlight,
  idemKeyLength,
  idemKeyRequired,
  idemReplay,
  idemScopedPerKey,
  idemScopedPerOperation,
  idemSingleObject,
  idemNoGhostObject,
  jsonAndIntegers,
  listCreatedBounds,
  listEnvelope,
  listFiltersBeforePagination,
  listLimit,
  listModeIsolation,
  listNewestFirst,
  listStatusFilter,
  listUnknownCursor,
  listWalkExactlyOnce,
  liveKeyRejectsTestCards,
  livemodeMatchesKey,
  merchantIsolation,
  merchantReferenceNoDedup,
  missingFieldNamed,
  modeIsolation,
  nextActionIffRequiresAction,
  noCardDataReturned,
  noEventForNonTerminal,
  noRateHeadersOn401,
  noSecretEcho,
  nonJsonBody,
  overRefundRefused,
  paymentEchoesInput,
  rateBurstCap,
  rateHeadersPresent,
  rateLimitPerKey,
  rateLimitedResponse,
  rateRemaining,
  rateResetValue,
  rateWindowCap,
  rateNoEarly429,
  rateWindowFixed,
  redirectUrlByIntegration,
  refundAccepted,
  refundIdempotency,
  refundPathServed,
  refundSettles,
  badRefundNoEffect,
  refundRequiresSucceeded,
  refundedAmountSum,
  refundedAtWhenFull,
  refundsWithinAmount,
  retriesKeepEventId,
  retryAfterHonest,
  retryNoDoubleCharge,
  sandboxAcceptsCardDetails,
  sandboxCardOutcome,
  sandboxDeclineAsync,
  serverErrors,
  settlesAfterHeal,
  settlesWithinBound,
  statusTimestamps,
  statusTransitions,
  succeededHasCard,
  terminalIsFinal,
  terminalPaymentEvent,
  terminalRefundEvent,
  testEventsTestEndpoints,
  threeDsOutcome,
  unknownPayment404,
  webhookEnvelope,
  webhookSignature,
  webhookTimestampFresh,
];
