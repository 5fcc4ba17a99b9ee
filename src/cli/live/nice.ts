/**
 * The judge's thread runs at the lowest priority there is, below the load's threads and the
 * history writer's worker (+10): it takes the CPU time the load leaves, so judging lags while the
 * machine is saturated and catches up after; the load, and an embedded service in the same
 * process, never wait for it. The priority bounds the CPU time it takes, not the hardware it
 * shares: on the 2-core throughput bench, a saturated closed loop still loses about 15% of its
 * rate to it (bench/README.md). Imported first by the thread's script, so that even loading the
 * oracle's modules runs at the lower priority. On Linux the nice value of pid 0 is this thread's alone.
 */
import { getPriority, setPriority } from 'node:os';

try {
  setPriority(Math.min(19, getPriority() + 19));
} catch {
  // Not permitted or not supported: run at the same priority.
}
