import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'scenarios/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers on loopback; two cores, so keep parallelism modest.
    pool: 'forks',
    maxWorkers: 2,
  },
});
