import { appliedMigrations, migrateToLatest } from '../../db/migrate.js';
import type { Command } from '../cli.js';
import { required, UsageError } from '../cli.js';

export const userCommands: Command[] = [
  {
    name: 'migrate',
    summary: 'apply pending migrations',
    run: async (_values, ctx) => {
      const database = await ctx.database();
      if (database.createdFromTemplate) {
        // A new embedded database starts as a copy of the build's migrated template: say what it came with.
        const names = await appliedMigrations(database.db);
        ctx.out(`Created from the migrated template: ${names.join(', ')}`);
      }
      const applied = await migrateToLatest(database.db);
      ctx.out(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date');
    },
  },
  {
    name: 'create-user',
    summary: 'create a user (--admin: instance admin)',
    usage: '--email E --password P [--name N] [--admin]',
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' }, admin: { type: 'boolean' } },
    run: async (values, ctx) => {
      const email = required(values, 'email');
      const password = required(values, 'password');
      if (password.length < 8) throw new UsageError('--password must have at least 8 characters');
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError(`--email "${email}" is not an e-mail address`);
      const { identity } = await ctx.services();
      const user = await identity.createUser({ email, password, display_name: typeof values.name === 'string' ? values.name : email });
      ctx.out(JSON.stringify(values.admin ? await identity.grantInstanceAdmin(user.email) : user, null, 2));
    },
  },
  ...(['grant-admin', 'revoke-admin'] as const).map((name): Command => ({
    name,
    summary: name === 'grant-admin' ? 'make a user an instance admin' : 'take instance admin away',
    usage: '--email E',
    options: { email: { type: 'string' } },
    run: async (values, ctx) => {
      const { identity } = await ctx.services();
      ctx.out(JSON.stringify(await identity.grantInstanceAdmin(required(values, 'email'), name === 'grant-admin'), null, 2));
    },
  })),
];
