import { parseArgs } from 'node:util';
import { buildApp } from '../app.js';
import { ConfigError, loadConfig } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { createIdentityService, identityRepository } from '../modules/identity/index.js';
import { allowAllPlanGate } from '../kernel/plan-gate.js';
import { systemClock } from '../kernel/clock.js';
import { NO_AUTH_LIMITS } from '../kernel/attempt-limiter.js';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  migrate                                   apply pending migrations
  create-user --email E --password P [--name N] [--admin]
                                            create a user (--admin: instance admin)
  grant-admin --email E                     make a user an instance admin
  revoke-admin --email E                    take instance admin away
  openapi                                   print the OpenAPI document
`;

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      admin: { type: 'boolean', default: false },
    },
    allowPositionals: false,
  });
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (command === 'create-user' && (values.password ?? '').length < 8) {
    throw new ConfigError('--password must have at least 8 characters');
  }
  if (!['migrate', 'create-user', 'grant-admin', 'revoke-admin', 'openapi'].includes(command)) {
    console.error(`Unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const database = await openDatabase(config);
  try {
    const applied = await migrateToLatest(database.db);
    const identity = createIdentityService({
      db: database.db,
      repo: identityRepository(database.db),
      clock: systemClock,
      planGate: allowAllPlanGate,
      allowSignup: true,
      sessionTtlDays: config.sessionTtlDays,
      limiters: NO_AUTH_LIMITS,
    });
    const need = (name: 'email' | 'password'): string => {
      const v = values[name];
      if (!v) throw new ConfigError(`--${name} is required`);
      return v;
    };
    switch (command) {
      case 'migrate':
        console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date');
        return 0;
      case 'create-user': {
        const password = need('password');
        const user = await identity.createUser({ email: need('email'), password, display_name: values.name ?? need('email') });
        const final = values.admin ? await identity.grantInstanceAdmin(user.email) : user;
        console.log(JSON.stringify(final, null, 2));
        return 0;
      }
      case 'grant-admin':
      case 'revoke-admin':
        console.log(JSON.stringify(await identity.grantInstanceAdmin(need('email'), command === 'grant-admin'), null, 2));
        return 0;
      case 'openapi': {
        const app = await buildApp({ config: { ...config, logLevel: 'silent' }, database });
        await app.ready();
        console.log(JSON.stringify(app.swagger(), null, 2));
        await app.close();
        return 0;
      }
      default:
        console.error(`Unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? `Error: ${error.message}` : error);
    process.exit(1);
  },
);
