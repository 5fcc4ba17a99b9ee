/**
 * k6 provides `console` to scripts, but @types/k6 does not declare it and this
 * project type-checks the k6 scripts without DOM or Node types.
 */
declare global {
  const console: {
    log(...args: unknown[]): void;
    info(...args: unknown[]): void;
    warn(...args: unknown[]): void;
    error(...args: unknown[]): void;
    debug(...args: unknown[]): void;
  };
}
export {};
