import { Type } from 'typebox';
import { NullableTimestamp, Slug, Timestamp, Uuid } from '../../http/schemas.js';

export const RoleSchema = Type.Enum(['admin', 'member', 'guest'], { description: 'Workspace role' });

export const User = Type.Object({
  id: Uuid,
  email: Type.String({ format: 'email' }),
  display_name: Type.String(),
  is_instance_admin: Type.Boolean(),
  time_zone: Type.String({ description: "IANA time zone (default UTC); the mail digest's hour is read in it" }),
  created_at: Timestamp,
});

const Email = Type.String({ format: 'email', maxLength: 254 });

/** The sign-up password rules (contract 3), also for invitations and password reset. */
export const Password = Type.String({ minLength: 8, maxLength: 1024, description: 'At least 8 characters' });
export const DisplayName = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

export const UpdateMeBody = Type.Object(
  {
    display_name: Type.Optional(DisplayName),
    time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone such as Europe/Istanbul (unknown: 400)' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const SignUpBody = Type.Object({
  email: Email,
  password: Password,
  display_name: DisplayName,
});

export const SignInBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const AuthResponse = Type.Object({
  user: User,
  token: Type.String({ description: 'Session token; send as Authorization: Bearer <token>' }),
});

export const ApiToken = Type.Object({
  id: Uuid,
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the secret, to recognise it' }),
  created_at: Timestamp,
  expires_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
});

export const CreatedApiToken = Type.Object({
  ...ApiToken.properties,
  token: Type.String({ description: 'The secret; shown only in this response' }),
});

export const CreateTokenBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
  expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
});

export const TokenParams = Type.Object({ tokenId: Uuid });

export const Member = Type.Object({
  user_id: Uuid,
  email: Type.String(),
  display_name: Type.String(),
  role: RoleSchema,
  created_at: Timestamp,
});

export const AddMemberBody = Type.Object({ email: Email, role: RoleSchema });
export const UpdateMemberBody = Type.Object({ role: RoleSchema });
export const MemberParams = Type.Object({ slug: Slug, userId: Uuid });
