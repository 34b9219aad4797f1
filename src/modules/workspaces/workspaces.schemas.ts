import { Type } from 'typebox';
import { Timestamp, Uuid } from '../../http/schemas.js';
import { RoleSchema } from '../identity/index.js';

export const SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{1,47}$';

export const Workspace = Type.Object({
  id: Uuid,
  slug: Type.String(),
  name: Type.String(),
  time_zone: Type.String({ description: 'IANA time zone of "today" and of every day boundary (planning, timesheets); default UTC' }),
  search_language: Type.String({ description: 'Text search language of search (stemming): english (default), turkish, german, simple, ...' }),
  created_by: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  role: RoleSchema,
});

export const CreateWorkspaceBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
  slug: Type.String({ pattern: SLUG_PATTERN, description: 'URL identifier: lower-case letters, digits and dashes, 2..48' }),
});

export const UpdateWorkspaceBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' })),
  time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone name, e.g. Europe/Istanbul (admin)' })),
  search_language: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'A text search configuration of the database: simple, english, turkish, german, french, spanish, ... (admin). ' +
        'Every issue is searched in it within a minute (a background duty rebuilds them; search works throughout).',
    }),
  ),
});
