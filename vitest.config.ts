import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'scenarios/**/*.test.ts'],
    // Builds the CLI once into a temp dir, so spawned `paystorm` processes start compiled (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers on loopback and mostly wait on timers (load ~1 on two cores with two
    // workers): three workers took the suite from 348 s to 252 s on this machine with every test passing.
    pool: 'forks',
    maxWorkers: 3,
  },
});
