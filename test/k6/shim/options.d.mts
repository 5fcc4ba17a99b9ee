/** Types of what tests import from the k6 stand-in's options module (options.mjs). */
export declare const SYSTEM_TAG_NAMES: readonly string[];
export declare function consolidate(script: Record<string, unknown> | null, cli: Record<string, unknown>): Record<string, unknown>;
export declare function deepFreeze<T>(o: T): T;
