/**
 * The history format's version, on its own so code that only writes records
 * (the history writer's worker thread) needs no schema library.
 */
export const HISTORY_VERSION = 1 as const;
