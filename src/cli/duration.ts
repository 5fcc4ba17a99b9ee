/** Durations as users type them: `500ms`, `30s`, `5m`, `1h30m`, or a bare number of milliseconds. */
export function parseDuration(input: string | number, field: string): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw new Error(`${field}: expected a duration such as 30s, 5m or 1h; got ${input}`);
    return input;
  }
  const s = input.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    matched = re.lastIndex;
  }
  if (matched !== s.length || s.length === 0) throw new Error(`${field}: expected a duration such as 30s, 5m or 1h30m; got "${input}"`);
  return total;
}
