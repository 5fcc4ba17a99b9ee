/**
 * k6 provides `console` to scripts, but @types/k6 does not declare it and this
 * project type-checks the k6 scripts without DOM or Node types. Declared as Node
 * declares it (`var console: Console`, an interface that merges), so the two agree when
 * a shared module (src/history/exchange-record.ts, bundled for the history records) brings
 * Node's types into the type-check.
 */
interface Console {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}
declare var console: Console;
