#!/usr/bin/env node
/* global URL -- a Node.js global (ESLint gives .mjs files none) */
// The operator CLI as a binary (`npx work-item-service <command>`); the same as `npm run cli -- <command>`.
// The compiled CLI (dist/, `npm run build`) when it is at least as new as the sources; else the sources through tsx,
// so an edit to src/ never runs stale code.
import { existsSync } from 'node:fs';
import { serverIsStale } from '../scripts/build.mjs';

const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
if (existsSync(compiled) && !serverIsStale()) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
