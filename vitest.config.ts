import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'scenarios/**/*.test.ts'],
    // Builds the CLI once into a temp dir, so spawned `paystorm` processes start compiled (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers on loopback; two cores, so keep parallelism modest.
    pool: 'forks',
    maxWorkers: 2,
  },
});
