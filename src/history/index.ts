/**
 * The history: the one record format every stage shares (Jepsen-style, the oracle judges a
 * history and nothing else). This folder alone knows how records are encoded: the versioned
 * schema, the writer (and its worker thread), the reader, the converters from k6 output
 * and from merged shards, and the metrics folded from records (engine and oracle alike). Everything else imports it from here.
 */
export * from './version.ts';
export * from './schema.ts';
export { HistoryWriter, type HistoryWriterOptions, type RecordListener } from './writer.ts';
export { readHistory, HistoryFile, FULLY_VALIDATED_LINES, type HistoryReadStats, type ReadHistoryOptions } from './reader.ts';
export { notAHistory } from './sniff.ts';
export * from './exchange-record.ts';
export { LeakScanner } from './leak-scanner.ts';
export { HISTORY_FILE, HISTORY_FILES, encodingOf, historyFileIn, type HistoryEncoding } from './format.ts';
export * from './metrics.ts';
export { makeDirs, makeDirsSync } from './dirs.ts';
export { runStop, type RunStop, type StopKind } from './stop.ts';
export { ScenarioActivity, scenarioProgress, scenarioProgressOf, stopPhrase, type ScenarioProgress } from './scenario-progress.ts';
