#!/usr/bin/env node
// Entry point: runs the TypeScript CLI through tsx's loader, so there is no build step to forget.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
