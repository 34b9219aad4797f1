import type { Executor, Tx } from '../../db/database.js';
import { AppError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { AttachmentsDeps } from './attachments.deps.js';

/** Space held for one upload under way (25.3): its id and how many bytes it holds now. */
export interface Reservation {
  id: string;
  workspaceId: string;
  bytes: number;
}

/** How long a reservation lives without a write before the duty frees it: a multipart upload, a tus upload. */
export const RESERVATION_TTL_MS = { multipart: 60 * 60_000, tus: 24 * 60 * 60_000 };

export type Quota = ReturnType<typeof createQuota>;

/**
 * The exact storage quota (contract 25.3): space is reserved before bytes are written, under the workspace's usage
 * row lock, and settled (moved to `used_bytes`) or released after. Concurrent uploads therefore never take the
 * workspace over its plan together: each reservation sees the ones before it. A downgrade lowers the limit the next
 * reservation is checked against; nothing stored is deleted.
 */
export function createQuota(deps: Pick<AttachmentsDeps, 'db' | 'repo' | 'clock' | 'planGate'>) {
  const { db, repo, clock, planGate } = deps;

  const refuse = (used: number, limit: number): AppError =>
    new AppError(
      'storage_limit_reached',
      `This upload would take the workspace over its plan's storage (${used} of ${limit} bytes used); delete files or upgrade`,
      undefined,
      undefined,
      { used_bytes: used, limit_bytes: limit },
    );

  /** Checks that `bytes` more fit (the caller holds the usage lock); throws 402 otherwise. */
  async function assertFits(tx: Tx, workspaceId: string, bytes: number): Promise<void> {
    const usage = await repo.lockUsage(tx, workspaceId);
    const limit = await planGate.storageLimitBytes(tx, workspaceId);
    if (limit !== null && usage.used_bytes + usage.reserved_bytes + bytes > limit) throw refuse(usage.used_bytes, limit);
  }

  return {
    /** Reserves `bytes` for an upload whose file will be `storageKey` (freed with it by the duty if abandoned). */
    async reserve(workspaceId: string, bytes: number, storageKey: string, ttlMs: number): Promise<Reservation> {
      const id = newId();
      await db.transaction().execute(async (tx) => {
        await assertFits(tx, workspaceId, bytes);
        const now = clock.now();
        await repo.insertReservation(tx, {
          id,
          workspace_id: workspaceId,
          bytes,
          storage_key: storageKey,
          created_at: now,
          expires_at: new Date(now.getTime() + ttlMs),
        });
        await repo.addUsage(tx, workspaceId, { used: 0, reserved: bytes });
      });
      return { id, workspaceId, bytes };
    },

    /** Grows a reservation by `bytes` (a file longer than announced, or of unknown length); 402 when they do not fit. */
    async grow(reservation: Reservation, bytes: number, ttlMs: number): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await assertFits(tx, reservation.workspaceId, bytes);
        const expiresAt = new Date(clock.now().getTime() + ttlMs);
        if (!(await repo.growReservation(tx, reservation.workspaceId, reservation.id, bytes, expiresAt))) {
          throw new AppError('conflict', 'The upload took too long and its reserved space was freed; start it again');
        }
        await repo.addUsage(tx, reservation.workspaceId, { used: 0, reserved: bytes });
      });
      reservation.bytes += bytes;
    },

    /** Keeps a long upload's reservation from expiring. */
    async touch(reservation: Reservation, ttlMs: number): Promise<void> {
      await repo.touchReservation(db, reservation.workspaceId, reservation.id, new Date(clock.now().getTime() + ttlMs));
    },

    /** Frees a reservation (an upload refused, aborted or failed). */
    async release(reservation: Reservation): Promise<void> {
      await db.transaction().execute(async (tx) => releaseIn(tx, reservation));
    },

    /**
     * Inside the transaction that records the stored file: its reservation goes, and `usedBytes` are counted as
     * used. The lock is taken first so that the counters change in one order everywhere.
     */
    async settle(tx: Tx, reservation: Reservation, usedBytes: number): Promise<void> {
      await repo.lockUsage(tx, reservation.workspaceId);
      const held = await repo.deleteReservation(tx, reservation.workspaceId, reservation.id);
      // Gone: the duty judged the upload abandoned and queued its file for deletion; recording it now would lose it.
      if (held === null) throw new AppError('conflict', 'The upload took too long and its reserved space was freed; start it again');
      await repo.addUsage(tx, reservation.workspaceId, { used: usedBytes, reserved: -held });
    },

    /** The workspace's counters, for the limits answer and the console. */
    usage: (tx: Executor, workspaceId: string) => repo.usage(tx, workspaceId),
  };

  async function releaseIn(tx: Executor, reservation: Pick<Reservation, 'id' | 'workspaceId'>): Promise<void> {
    await repo.lockUsage(tx, reservation.workspaceId);
    const held = await repo.deleteReservation(tx, reservation.workspaceId, reservation.id);
    if (held) await repo.addUsage(tx, reservation.workspaceId, { used: 0, reserved: -held });
  }
}
