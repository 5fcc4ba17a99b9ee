import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'scenarios/**/*.test.ts'],
    // Builds the CLI once into a temp dir, so spawned `paystorm` processes start compiled (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers on loopback and wait on timers, but every spawned `paystorm run` now
    // also judges live on a thread of its own: with three workers on two cores the in-process
    // default suite's embedded processor was starved for seconds (clean payments pending past the
    // settle bound). Two workers keep a core per file.
    pool: 'forks',
    maxWorkers: 2,
  },
});
