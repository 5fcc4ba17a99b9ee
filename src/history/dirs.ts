/**
 * Creates a directory and its missing parents one level at a time. Node's recursive mkdir never
 * returns on some paths a run may be given (it spins on `/proc/x`, where each level answers
 * ENOENT), which hung a run whose --out pointed there; one level at a time, every failure is an
 * error that names the path.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

function missingLevels(path: string, exists: (p: string) => boolean): string[] {
  const levels: string[] = [];
  let p = resolve(path);
  while (!exists(p)) {
    levels.unshift(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  return levels;
}

function isDirSync(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function existsSyncAny(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

/** mkdir -p, one level at a time (see the module comment); returns the levels it made, outermost first. */
export function makeDirsSync(path: string): string[] {
  const made: string[] = [];
  for (const level of missingLevels(path, existsSyncAny)) {
    try {
      mkdirSync(level);
      made.push(level);
    } catch (e) {
      // Made meanwhile by someone else: fine when it is a directory.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirSync(level)) throw e;
    }
  }
  if (!isDirSync(path)) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path });
  return made;
}

/**
 * The same, for async callers. A few mkdir calls on a report's folder block for microseconds, so
 * it runs the synchronous one rather than a second copy of the walk.
 */
export async function makeDirs(path: string): Promise<void> {
  makeDirsSync(path);
}
