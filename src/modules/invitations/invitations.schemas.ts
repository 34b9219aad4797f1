import { Type } from 'typebox';
import { Slug, Timestamp, Uuid } from '../../http/schemas.js';
import { DisplayName, MemberSchema, Password, RoleSchema, UserSchema } from '../identity/index.js';

const Email = Type.String({ format: 'email', maxLength: 254, description: 'Stored trimmed and in lower case' });
const InvitationToken = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$', description: 'The token of the mailed link' });

export const Invitation = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: RoleSchema,
  invited_by: Type.Union([Uuid, Type.Null()], { description: 'Who sent it (null once that account is gone)' }),
  created_at: Timestamp,
  expires_at: Timestamp,
});

export const CreateInvitationBody = Type.Object({ email: Email, role: RoleSchema });
export const InvitationsParams = Type.Object({ slug: Slug });
export const InvitationParams = Type.Object({ slug: Slug, invitationId: Uuid });
export const TokenParams = Type.Object({ token: InvitationToken });

export const InvitationPreview = Type.Object({
  workspace: Type.Object({ name: Type.String(), slug: Type.String() }),
  email: Type.String(),
  role: RoleSchema,
  expires_at: Timestamp,
});

export const AcceptBody = Type.Object({
  password: Type.Optional(Password),
  display_name: Type.Optional(DisplayName),
});

export const Membership = MemberSchema;
export const SignedUpMember = Type.Object({
  user: UserSchema,
  token: Type.String({ description: 'Session token of the new account' }),
  membership: MemberSchema,
});

export const PasswordResetBody = Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }) });
export const PasswordResetConfirmBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }), password: Password });
