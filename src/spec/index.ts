/** The spec as typed data: every other folder imports the rules from here. */
export * from './rules.ts';
export * from './statuses.ts';
export * from './errors.ts';
export * from './limits.ts';
export * from './keys.ts';
export * from './cards.ts';
export * from './events.ts';
export * from './signature.ts';
export * from './sandbox.ts';
export * from './refund.ts';
export * from './operations.ts';
export * from './payment.ts';
export * from './history.ts';
export * from './summary.ts';
export * from './metrics.ts';
export * from './exit-codes.ts';
