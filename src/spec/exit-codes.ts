/** Exit codes of every paystorm command (README "Exit codes"). */
export const EXIT = Object.freeze({
  pass: 0,
  violation: 1,
  threshold: 2,
  usage: 3,
  target: 4,
  interrupted: 130,
});
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A user-facing error: names the field and the fix; carries its exit code. */
export class PaystormError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.usage,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'PaystormError';
  }
}
