/**
 * Runs a cleanup when the process is told to stop (SIGINT, SIGTERM) or runs out of
 * work (beforeExit). SIGKILL cannot be caught: a run killed that way leaves its
 * proxies and toxics behind, and the next session's collision check reports them.
 */
const SIGNAL_EXIT: Readonly<Record<'SIGINT' | 'SIGTERM', number>> = { SIGINT: 130, SIGTERM: 143 };

/** Installs the hooks; the returned function removes them. */
export function installCleanupHooks(cleanup: () => Promise<void>, onError: (err: unknown) => void): () => void {
  const onSignal = (sig: 'SIGINT' | 'SIGTERM') => {
    void cleanup()
      .catch(onError)
      .finally(() => {
        // A listener disables Node's default exit on the signal; restore it unless the
        // owner listens too (then stopping is the owner's call).
        if (process.listenerCount(sig) === 0) process.exit(SIGNAL_EXIT[sig]);
      });
    // Remove ourselves first, so listenerCount above counts only the owner's listeners.
    uninstall();
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  const onBeforeExit = () => {
    uninstall();
    void cleanup().catch(onError);
  };
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  process.on('beforeExit', onBeforeExit);
  let installed = true;
  function uninstall(): void {
    if (!installed) return;
    installed = false;
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    process.off('beforeExit', onBeforeExit);
  }
  return uninstall;
}
