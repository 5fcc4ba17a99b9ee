/**
 * A strict reader of the OpenMetrics text format (openmetrics.io, "Text format"), enough to
 * check what `--metrics-port` serves: every family declared once with its TYPE before its
 * samples, each sample named as its type allows, labels well formed, values numbers, `# EOF`
 * last. It throws on the first line that breaks the format, naming it.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help: string | null;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Sample name suffixes each type allows (OpenMetrics 1.0). */
const SUFFIXES: Record<string, readonly string[]> = {
  counter: ['_total', '_created'],
  gauge: [''],
  histogram: ['_bucket', '_sum', '_count', '_created'],
  summary: ['', '_sum', '_count', '_created'],
  unknown: [''],
  info: ['_info'],
  stateset: [''],
  gaugehistogram: ['_bucket', '_gsum', '_gcount'],
};

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`label without value: ${line}`);
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name "${name}": ${line}`);
    if (name in labels) throw new Error(`label "${name}" twice: ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`label value not quoted: ${line}`);
    let j = eq + 2;
    let value = '';
    for (;;) {
      if (j >= text.length) throw new Error(`unterminated label value: ${line}`);
      const c = text[j];
      if (c === '\\') {
        const n = text[j + 1];
        if (n === 'n') value += '\n';
        else if (n === '\\' || n === '"') value += n;
        else throw new Error(`bad escape \\${n}: ${line}`);
        j += 2;
      } else if (c === '"') {
        j++;
        break;
      } else {
        value += c;
        j++;
      }
    }
    labels[name] = value;
    if (j === text.length) break;
    if (text[j] !== ',') throw new Error(`expected , between labels: ${line}`);
    i = j + 1;
  }
  return labels;
}

function parseValue(v: string, line: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  if (v === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v)) throw new Error(`bad value "${v}": ${line}`);
  return Number(v);
}

export function parseOpenMetrics(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition does not end with a newline');
  lines.pop();
  if (lines.at(-1) !== '# EOF') throw new Error('the exposition does not end with # EOF');
  lines.pop();
  let current = null as Family | null;
  for (const line of lines) {
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE|UNIT) (\S+)(?: (.*))?$/.exec(line);
      if (!m) throw new Error(`bad comment line: ${line}`);
      const [, what, name, rest = ''] = m;
      if (!NAME.test(name)) throw new Error(`bad family name: ${line}`);
      if (current?.name !== name) {
        if (families.has(name)) throw new Error(`family ${name} declared twice (its lines must be together)`);
        current = { name, type: 'unknown', help: null, samples: [] };
        families.set(name, current);
      }
      if (what === 'TYPE') {
        if (!(rest in SUFFIXES)) throw new Error(`unknown type "${rest}": ${line}`);
        current.type = rest;
      } else if (what === 'HELP') current.help = rest;
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (\S+))?$/.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const [, name, labelText, value] = m;
    if (!current || !SUFFIXES[current.type].some((s) => name === current!.name + s)) {
      throw new Error(`sample ${name} does not belong to the family declared before it (${current?.name ?? 'none'}, ${current?.type ?? '-'})`);
    }
    current.samples.push({ name, labels: labelText ? parseLabels(labelText, line) : {}, value: parseValue(value, line) });
  }
  return families;
}

/** The samples named `name` in a parsed exposition. */
export function samplesOf(families: Map<string, Family>, name: string): Sample[] {
  return [...families.values()].flatMap((f) => f.samples.filter((s) => s.name === name));
}

/** The sum of the samples named `name` whose labels include `match`. */
export function sumOf(families: Map<string, Family>, name: string, match: Record<string, string> = {}): number {
  return samplesOf(families, name)
    .filter((s) => Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}
