// slicer: splits each chunk into pieces of about `average_size` ± `size_variation` bytes and
// waits `delay` microseconds after each piece (Toxiproxy's SlicerToxic).
import { registerToxic, type ToxicDefinition } from './toxic.ts';

interface SlicerAttributes {
  [k: string]: number;
  average_size: number;
  size_variation: number;
  delay: number;
}

function randInt(n: number): number {
  return Math.floor(Math.random() * n);
}

/**
 * Offsets [s0, e0, s1, e1, ...] slicing [start, end), halving recursively until a piece is
 * within the variation of the average size. Unlike Go (which panics or recurses forever on
 * such input), the midpoint is kept strictly inside the range.
 */
function sliceOffsets(start: number, end: number, avg: number, variation: number): number[] {
  const out: number[] = [];
  const stack: Array<[number, number]> = [[start, end]];
  while (stack.length > 0) {
    const [s, e] = stack.pop()!;
    if (e - s - avg <= variation || e - s < 2) {
      out.push(s, e);
      continue;
    }
    let mid = s + Math.floor((e - s) / 2);
    if (variation > 0) mid += randInt(variation * 2) - variation;
    mid = Math.min(e - 1, Math.max(s + 1, mid));
    stack.push([mid, e], [s, mid]); // left half first
  }
  return out;
}

const slicer: ToxicDefinition<SlicerAttributes> = {
  type: 'slicer',
  defaults: { average_size: 0, size_variation: 0, delay: 0 },
  goTypes: { average_size: 'int', size_variation: 'int', delay: 'int' },
  validate(attrs) {
    if (attrs.average_size <= 0) return 'average_size must be greater than 0';
    if (attrs.size_variation < 0) return 'size_variation must not be negative';
    return undefined;
  },
  create(attrs) {
    const delayMs = attrs.delay / 1000;
    return {
      async pipe(stub) {
        for (;;) {
          const ev = await stub.next();
          if (ev.kind === 'interrupt') return;
          if (ev.kind === 'eof') {
            stub.close();
            return;
          }
          if (ev.kind !== 'chunk') continue;
          const c = ev.chunk;
          const offs = sliceOffsets(0, c.data.length, attrs.average_size, attrs.size_variation);
          for (let i = 1; i < offs.length; i += 2) {
            stub.send({ data: c.data.subarray(offs[i - 1], offs[i]), ts: c.ts });
            if (!(await stub.sleep(delayMs))) {
              if (offs[i] < c.data.length) stub.send({ data: c.data.subarray(offs[i]), ts: c.ts });
              return;
            }
          }
        }
      },
    };
  },
};

registerToxic(slicer);
