import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;

/** Migration 1093: a stored file on an issue or one of its comments (contract 25.1). */
export interface AttachmentsTable {
  id: string;
  workspace_id: string;
  issue_id: string;
  comment_id: string | null;
  filename: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  storage_key: string;
  image_width: number | null;
  image_height: number | null;
  thumbnail_key: string | null;
  thumbnail_bytes: Generated<number>;
  created_by: string;
  created_at: Timestamp;
}

/** The workspace's stored and reserved bytes (25.3); no row reads as zero. */
export interface StorageUsageTable {
  workspace_id: string;
  used_bytes: Generated<number>;
  reserved_bytes: Generated<number>;
}

/** Space held for an upload under way (25.3, 25.4). */
export interface StorageReservationsTable {
  id: string;
  workspace_id: string;
  bytes: number;
  storage_key: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** Stored files to remove, written in the transaction of the deletion (25.1). */
export interface StorageDeletionsTable {
  id: Generated<number>;
  workspace_id: string;
  storage_key: string;
  created_at: Generated<Date>;
}

/** Migration 1094: a resumable (tus) upload under way (25.4); it lives as long as its reservation. */
export interface TusUploadsTable {
  id: string;
  workspace_id: string;
  issue_id: string;
  comment_id: string | null;
  reservation_id: string;
  storage_key: string;
  filename: string;
  upload_length: number;
  created_by: string;
  created_at: Timestamp;
  finishing_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface AttachmentsTables {
  attachments: AttachmentsTable;
  storage_usage: StorageUsageTable;
  storage_reservations: StorageReservationsTable;
  storage_deletions: StorageDeletionsTable;
  tus_uploads: TusUploadsTable;
}
