import { buildApp } from '../app.js';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { type DatabaseHandle, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { buildServices, type Services } from '../services.js';
import { AppError } from '../kernel/errors.js';
import { type CliContext, type Command, describeAppError, parseFlags, UsageError } from './cli.js';
import { catalogueCommands } from './commands/catalogue.js';
import { checkPaymentPageCommand } from './commands/check-payment-page.js';
import { demoCommand } from './commands/demo.js';
import { paymentCommands } from './commands/payments.js';
import { userCommands } from './commands/users.js';
import { webhookCommands } from './commands/webhooks.js';
import { mailCommands } from './commands/mail.js';

/**
 * The operator's command line: `npm run cli -- <command> [flags]`. Commands run in-process against the database of
 * the environment (PGlite while the server is stopped, PostgreSQL at any time), as an instance admin.
 * Exit codes: 0 success, 1 failure (the service refused, the database failed), 2 usage (unknown command or flag,
 * missing or malformed value).
 */
const COMMANDS: Command[] = [
  ...userCommands,
  ...catalogueCommands,
  ...paymentCommands,
  ...webhookCommands,
  ...mailCommands,
  demoCommand,
  checkPaymentPageCommand,
  {
    name: 'openapi',
    summary: 'print the OpenAPI document',
    run: async (_values, ctx) => {
      const app = await buildApp({ config: { ...ctx.config(), logLevel: 'silent' }, database: await ctx.database() });
      await app.ready();
      ctx.out(JSON.stringify(app.swagger(), null, 2));
      await app.close();
    },
  },
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: npm run cli -- <command> [flags]   (each command takes --help)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "The environment is the service's own (DATABASE_URL, DATA_DIR, ...). Exit codes: 0 ok, 1 failed, 2 usage.",
  ].join('\n');
}

function commandHelp(c: Command): string {
  return [`Usage: npm run cli -- ${c.name} ${c.usage ?? ''}`.trimEnd(), '', c.summary, ...(c.help ? ['', c.help] : [])].join('\n');
}

/** The longest command name that the arguments start with (`plans list` before `plans`). */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    console.log(overview());
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    const known = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `)).map((c) => c.name);
    throw new UsageError(
      known.length
        ? `"${argv.slice(0, 2).join(' ')}" is not a command; try: ${known.join(', ')}`
        : `Unknown command "${argv[0]}" (npm run cli -- --help lists them)`,
    );
  }
  const { command, rest } = found;
  const values = parseFlags(command, rest);
  if (values.help) {
    console.log(commandHelp(command));
    return 0;
  }
  let composition: Services | undefined;
  let database: DatabaseHandle | undefined;
  let config: Config | undefined;
  const ctx: CliContext = {
    config: () => (config ??= loadConfig()),
    database: async () => (database ??= await openDatabase(ctx.config())),
    out: (line) => console.log(line),
    operator: { userId: '00000000-0000-7000-8000-000000000000', tokenId: 'cli', isInstanceAdmin: true, isOperator: true },
    services: async () => {
      if (!composition) {
        const db = await ctx.database();
        await migrateToLatest(db.db);
        composition = buildServices({ ...ctx.config(), logLevel: 'silent' }, db);
      }
      return composition.services;
    },
  };
  try {
    return (await command.run(values, ctx)) ?? 0;
  } finally {
    await composition?.close();
    await database?.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof ConfigError) {
      console.error(`error: ${error.message}`);
      process.exit(2);
    }
    console.error(`error: ${error instanceof AppError ? describeAppError(error) : error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
