/** paystorm's load engine: clock, history writer, metrics, executors, burst, progress, run loop. */
export * from './clock.ts';
export * from './metrics.ts';
export * from './executors.ts';
export * from './burst.ts';
export * from './progress.ts';
export * from './run.ts';
