/** paystorm's load engine: clock, executors, burst, progress, run loop. Its metrics fold history records, so they live in src/history/metrics.ts. */
export * from './clock.ts';
export * from './executors.ts';
export * from './burst.ts';
export * from './progress.ts';
export * from './live.ts';
export * from './run.ts';
