import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root folder (the one with package.json), found by walking up from this file: the same answer when the
 * service runs from its sources (src/config/) and when it runs compiled (dist/src/config/).
 */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot();

/** The migrated embedded-database cluster that `npm run build` makes (scripts/build.mjs) for a first start. */
export const PGLITE_TEMPLATE_DIR = join(PROJECT_ROOT, 'dist', 'pglite-template');
