import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, openPglite, processStartTime } from '../../src/db/database.js';

/** Contract 21: a stale lock of the embedded database whose pid now belongs to an unrelated process does not block start-up. */
describe('the embedded database lock', () => {
  const dirs: string[] = [];
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'wis-lock-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const linux = processStartTime(process.pid) !== null;
  const bootId = linux ? readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : '';

  it('records the pid, its start time and the boot id, and leaves with its holder', () => {
    const path = join(folder(), 'service.lock');
    const lock = acquireLock(path);
    const text = readFileSync(path, 'utf8');
    expect(Number.parseInt(text, 10)).toBe(process.pid); // older versions read the first line only
    if (linux) expect(text).toContain(`start=${processStartTime(process.pid)}\nboot=${bootId}`);
    lock.release();
    acquireLock(path).release();
  });

  it('refuses while the process that wrote the lock still runs', () => {
    const path = join(folder(), 'service.lock');
    const start = processStartTime(process.ppid);
    writeFileSync(path, `${process.ppid}\n${start ? `start=${start}\n` : ''}${bootId ? `boot=${bootId}\n` : ''}`);
    expect(() => acquireLock(path)).toThrow(`is in use by process ${process.ppid}`);
  });

  it('refuses an old pid-only lock whose process runs, and takes over one whose process is gone', () => {
    const path = join(folder(), 'service.lock');
    writeFileSync(path, String(process.ppid));
    expect(() => acquireLock(path)).toThrow(/in use/);
    writeFileSync(path, '2147483646'); // no such process
    acquireLock(path).release();
  });

  it.runIf(linux)('takes over a lock whose pid now belongs to another process (another start time)', () => {
    const path = join(folder(), 'service.lock');
    writeFileSync(path, `${process.ppid}\nstart=1\nboot=${bootId}\n`);
    const lock = acquireLock(path);
    expect(Number.parseInt(readFileSync(path, 'utf8'), 10)).toBe(process.pid);
    lock.release();
  });

  it.runIf(linux)('takes over a lock written before a reboot (another boot id), even if its pid is alive', () => {
    const path = join(folder(), 'service.lock');
    writeFileSync(path, `1\nstart=${processStartTime(1)}\nboot=00000000-0000-0000-0000-000000000000\n`);
    acquireLock(path).release();
  });

  it('opens the embedded database with the shared_buffers asked for (PGLITE_SHARED_BUFFERS)', async () => {
    const handle = await openPglite(folder(), { sharedBuffers: '16MB' });
    try {
      const { rows } = await sql<{ size: string }>`SELECT current_setting('shared_buffers') AS size`.execute(handle.db);
      expect(rows).toEqual([{ size: '16MB' }]);
    } finally {
      await handle.close();
    }
  }, 60_000);

  it.runIf(linux)(
    'starts the embedded database over a stale lock naming a live, unrelated process',
    async () => {
      const dir = folder();
      writeFileSync(join(dir, 'service.lock'), `${process.ppid}\nstart=1\nboot=${bootId}\n`);
      const handle = await openPglite(dir);
      try {
        const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(handle.db);
        expect(rows).toEqual([{ one: 1 }]);
        expect(Number.parseInt(readFileSync(join(dir, 'service.lock'), 'utf8'), 10)).toBe(process.pid);
      } finally {
        await handle.close();
      }
    },
    120_000,
  );
});
