/**
 * paystorm's custom metrics (src/spec/metrics.ts) as k6 metrics. Created at module
 * load, which is k6's init context, as k6 requires.
 */
import { Counter, Rate, Trend } from 'k6/metrics';

/** Create to first observed terminal status, ms. */
export const settleTime = new Trend('settle_time', true);
/** Share of requests answered 429. */
export const rateLimited = new Rate('rate_limited');
/** Payments answered 201 (not a paystorm threshold metric; for the end-of-test summary). */
export const paymentsCreated = new Counter('payments_created');
