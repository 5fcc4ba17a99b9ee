/**
 * Durations as users type them: `500ms`, `30s`, `5m`, `1h30m`. A bare number (5, or "5")
 * is refused: is it 5 ms or 5 s? (A config file's `"duration": 5` was once read as 5 ms.)
 */
import { EXIT, PaystormError } from '../spec/index.ts';

const FORMS = 'a number with its unit: ms, s, m or h (e.g. 500ms, 30s, 5m, 1h30m)';
/** One number with its unit; a duration is one or more of them in a row. */
const PART = '(\\d+(?:\\.\\d+)?)(ms|s|m|h)';
/** A whole duration, as the config file's JSON Schema states it (schema/config.json). */
export const DURATION_PATTERN = `^(?:${PART})+$`;

export function parseDuration(input: string | number, field: string): number {
  const s = typeof input === 'number' ? String(input) : input.trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) {
    const n = Number(s);
    const shown = typeof input === 'number' ? s : `"${s}"`;
    throw new PaystormError(`${field}: ${shown} has no unit. Write ${FORMS}: "${n}s" for ${n} seconds, "${n}m" for ${n} minutes, "${n}ms" for ${n} milliseconds.`, EXIT.usage, field);
  }
  const re = new RegExp(PART, 'gy');
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    matched = re.lastIndex;
  }
  if (matched !== s.length || s.length === 0) throw new PaystormError(`${field}: expected a duration, ${FORMS}; got "${input}"`, EXIT.usage, field);
  return total;
}
