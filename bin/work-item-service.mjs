#!/usr/bin/env node
// The operator CLI as a binary (`npx work-item-service <command>`); the same as `npm run cli -- <command>`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
