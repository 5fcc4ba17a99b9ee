/**
 * The judge's thread runs below the load's threads (as the history writer's worker does): judging
 * may lag while the machine is busy and catches up after; the load, and an embedded service in the
 * same process, must not wait for it. Imported first by the thread's script, so that even loading
 * the oracle's modules runs at the lower priority. On Linux the nice value of pid 0 is this thread's alone.
 */
import { getPriority, setPriority } from 'node:os';

try {
  setPriority(Math.min(19, getPriority() + 10));
} catch {
  // Not permitted or not supported: run at the same priority.
}
