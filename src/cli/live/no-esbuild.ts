/** Stands in for esbuild in the judge thread's bundle: the thread never starts a history writer, which is what needs it. */
export function buildSync(): never {
  throw new Error('esbuild is not available on the judge thread');
}
