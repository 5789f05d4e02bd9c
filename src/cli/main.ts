import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { KeyFile } from '../auth/key-file.ts';
import { main as pushMain } from '../push-script/main.ts';
import { checkDataDir, formatReport } from './check.ts';
import { AccountFile } from '../auth/accounts.ts';
import { checkName, createAccount, describeAccount, disableAccount, setPassword, setRole } from './accounts.ts';
import { listGrants, revokeGrants } from './grants.ts';
import { CliError, createKey, listKeys, revokeKey, UsageError } from './keys.ts';
import { webhooksMain, WEBHOOKS_USAGE } from './webhooks.ts';
import { attentionMain, ATTENTION_USAGE } from './attention.ts';

const USAGE = `Usage: npm run --silent cli -- <command> [options]

Commands:
  push --dir DIR --version VERSION [--dry-run | --offline]
      Post a folder of content files to import-files (HELP_URL, HELP_KEY from the environment), or
      check it here (--offline). Problems are printed as path:line: message.
  push-changed --since COMMIT [--root docs] [--dry-run | --offline] [--delete-removed]
      The same for every version folder under --root changed since COMMIT (git diff), each one
      even when another fails (details: npm run --silent cli -- push --help).
  strip-stamps --dir DIR [--dry-run]
      Remove the stamps older versions of the service wrote into content files (updatedAt,
      createdAt) from every version folder at or below DIR, changing no other line.
  keys create --name NAME [--publisher] [--scopes help:read,help:write] [--json]
      Issue an API key. The key is printed once; only its hash is stored.
  keys list [--json]
      List keys (name, prefix, scopes, publisher flag, created, last used).
  keys revoke --name NAME
      Revoke a key. A running server refuses it from the moment this returns.
  accounts create --name NAME --role admin|editor|viewer [--password-stdin] [--json]
      Create an account for signing in. Without --password-stdin a strong password is generated
      and printed once; with it, the password is read from standard input (at least 12 characters,
      not only white space, no control characters). A name that differs from an existing one only
      in case is refused.
  accounts list [--json]
      List accounts (name, role, how they sign in, disabled). Passwords are never shown.
  accounts set-role --name NAME --role admin|editor|viewer
      A new role ends what the account granted OAuth clients: their tokens stop working, and
      consent is asked again.
  accounts set-password --name NAME --password-stdin
  accounts disable --name NAME
      An account that is disabled can no longer sign in.
  accounts grants --name NAME [--json]
      List the OAuth clients the account has granted access to (client id, name, scopes, when
      granted, when a token was last issued if known). Safe while the server runs.
  accounts revoke --name NAME [--client=CLIENT_ID]
      Revoke what the account granted to one client (--client=, its id from accounts grants, written
      with = since a client id may begin with a dash), or to every client. A running server refuses
      the client's tokens from the moment this returns, and consent is asked again at the next sign-in.
${WEBHOOKS_USAGE}${ATTENTION_USAGE}  check [--json]
      Check the repository (git fsck --strict) and compare every snapshot with git.
      Exit 0 when all is well, 1 when something is wrong. Safe while the server runs.

Options:
  --data-dir DIR   The service's data directory (default: $HELP_DATA_DIR or ./data)
  --json           Print JSON only (one object or array on stdout)
`;

async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'push' || argv[0] === 'push-changed' || argv[0] === 'strip-stamps') {
    // npm runs the script in the service's folder; the content's paths are the caller's, below the
    // folder npm was started in (npm --prefix <service> run cli -- push, from a content repository).
    if (process.env.npm_lifecycle_event === 'cli' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
    return pushMain(argv);
  }
  if (argv[0] === 'webhooks' && !argv.includes('--help') && !argv.includes('-h')) return webhooksMain(argv.slice(1));
  if (argv[0] === 'attention' && !argv.includes('--help') && !argv.includes('-h')) return attentionMain(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      publisher: { type: 'boolean' },
      role: { type: 'string' },
      client: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      json: { type: 'boolean' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, command] = positionals;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  checkOptions(positionals, values);
  const dataDir = resolve(values['data-dir'] ?? (process.env.HELP_DATA_DIR || 'data'));
  if (group === 'check' && command === undefined) {
    if (!existsSync(dataDir)) throw new CliError(`No data directory at ${dataDir} (give --data-dir DIR or set HELP_DATA_DIR)`);
    const report = await checkDataDir(dataDir);
    process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : `${formatReport(report)}\n`);
    return report.ok ? 0 : 1;
  }
  if (group === 'accounts' && command) return accounts(command, dataDir, values);
  if (group !== 'keys' || !command) {
    const said =
      group === undefined
        ? 'No command given'
        : group === 'accounts'
          ? 'accounts needs a command: create, list, set-role, set-password, disable, grants or revoke'
          : group !== 'keys'
            ? `Unknown command "${[group, command].filter(Boolean).join(' ')}"`
            : 'keys needs a command: create, list or revoke';
    process.stderr.write(`${said}\n\n${USAGE}`);
    return 2;
  }
  // Only a new key may bring the data directory into being; listing or revoking in a folder that
  // does not exist is a mistyped path, not an empty key list.
  if (command === 'create') prepareDataDir(dataDir);
  else if (!existsSync(dataDir)) throw new CliError(`No data directory at ${dataDir} (give --data-dir DIR or set HELP_DATA_DIR)`);
  const file = new KeyFile(dataDir);
  const print = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);

  switch (command) {
    case 'create': {
      if (!values.name) throw new UsageError('keys create needs --name NAME');
      const key = await createKey(file, { name: values.name, scopes: values.scopes, publisher: values.publisher });
      print(key, `Created key "${key.name}" (${key.scopes.join(', ')}${key.canWritePublished ? ', publisher' : ''}):\n\n  ${key.key}\n\nStore it now: it is not shown again.`);
      return 0;
    }
    case 'list': {
      const keys = listKeys(file);
      const rows = keys.map((k) => `${k.name}\t${k.prefix}…\t${k.scopes.join(',')}\t${k.canWritePublished ? 'publisher' : '-'}\tcreated ${k.createdAt}\tlast used ${k.lastUsedAt ?? 'never'}`);
      print(keys, rows.length ? rows.join('\n') : 'No keys.');
      return 0;
    }
    case 'revoke': {
      if (!values.name) throw new UsageError('keys revoke needs --name NAME');
      const result = await revokeKey(file, values.name);
      print(result, `Revoked key "${values.name}".`);
      return 0;
    }
    default:
      process.stderr.write(`Unknown command "keys ${command}"\n\n${USAGE}`);
      return 2;
  }
}

/** The options each command takes besides --data-dir and --help: another one is a mistake, never ignored. */
const OPTIONS: Record<string, string[]> = {
  check: ['json'],
  'keys create': ['name', 'publisher', 'scopes', 'json'],
  'keys list': ['json'],
  'keys revoke': ['name', 'json'],
  'accounts create': ['name', 'role', 'password-stdin', 'json'],
  'accounts list': ['json'],
  'accounts set-role': ['name', 'role', 'json'],
  'accounts set-password': ['name', 'password-stdin', 'json'],
  'accounts disable': ['name', 'json'],
  'accounts grants': ['name', 'json'],
  'accounts revoke': ['name', 'client', 'json'],
};

/**
 * Refuses an option the command does not take (`keys create --role admin` made a key and said nothing
 * of the role) and words after the command. Unknown commands are left to the caller's message.
 */
function checkOptions(positionals: string[], values: Record<string, unknown>): void {
  const words = positionals[0] === 'check' ? 1 : 2;
  const command = positionals.slice(0, words).join(' ');
  const takes = OPTIONS[command];
  if (takes === undefined) return;
  if (positionals.length > words) throw new UsageError(`${command} takes no argument "${positionals[words]}" (options start with --)`);
  const given = Object.keys(values).filter((o) => o !== 'data-dir' && o !== 'help');
  const wrong = given.find((o) => !takes.includes(o));
  if (wrong !== undefined) throw new UsageError(`${command} does not take --${wrong} (it takes ${[...takes, 'data-dir'].map((o) => `--${o}`).join(', ')})`);
}

async function accounts(command: string, dataDir: string, values: { name?: string; role?: string; client?: string; json?: boolean; 'password-stdin'?: boolean }): Promise<number> {
  const print = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  if (command === 'create') prepareDataDir(dataDir);
  else if (!existsSync(dataDir)) throw new CliError(`No data directory at ${dataDir} (give --data-dir DIR or set HELP_DATA_DIR)`);
  const file = new AccountFile(dataDir);
  const password = values['password-stdin'] ? await readPassword() : undefined;
  switch (command) {
    case 'create': {
      const created = await createAccount(file, { name: values.name, role: values.role, password });
      const shown = 'password' in created ? `\n\n  ${created.password}\n\nStore the password now: it is not shown again.` : '';
      print(created, `Created account "${created.name}" (${created.role}).${shown}`);
      return 0;
    }
    case 'list': {
      const list = file.read().map(describeAccount);
      print(list, list.length ? list.map((a) => `${a.name}\t${a.role}\t${a.signIn}${a.disabled ? '\tdisabled' : ''}\tcreated ${a.createdAt}`).join('\n') : 'No accounts.');
      return 0;
    }
    case 'set-role': {
      const a = await setRole(file, values);
      print(a, `Account "${a.name}" is now ${a.role}.`);
      return 0;
    }
    case 'set-password': {
      const a = await setPassword(file, { name: values.name, password });
      print(a, `Changed the password of account "${a.name}".`);
      return 0;
    }
    case 'disable': {
      const a = await disableAccount(file, values);
      print(a, `Disabled account "${a.name}".`);
      return 0;
    }
    case 'grants': {
      const name = checkName(values.name, 'grants');
      const list = listGrants(file, dataDir, name);
      const rows = list.map((g) => `${g.clientId}\t${g.clientName ?? '(no name)'}\t${g.scopes.join(' ')}\tgranted ${g.grantedAt}\tlast used ${g.lastUsedAt ?? 'unknown'}`);
      print(list, rows.length ? rows.join('\n') : `Account "${name}" has granted no client access.`);
      return 0;
    }
    case 'revoke': {
      const name = checkName(values.name, 'revoke');
      if (values.client === '') throw new UsageError('--client needs a client id (see accounts grants --name NAME)');
      const r = await revokeGrants(file, dataDir, { name, client: values.client });
      const which = r.client === null ? `every client (${r.clients.length} with access now)` : `client ${r.clients.map((c) => (c.clientName ? `"${c.clientName}" (${c.clientId})` : c.clientId)).join('')}`;
      print(r, `Revoked what account "${name}" granted to ${which}; its tokens no longer work, and consent is asked again.`);
      return 0;
    }
    default:
      process.stderr.write(`Unknown command "accounts ${command}"\n\n${USAGE}`);
      return 2;
  }
}

/**
 * Creates the data directory for a key or account made before the service's first start. When it
 * holds no content repository yet, says so on stderr: a mistyped --data-dir makes a key that works
 * nowhere, and the 401 it gets later cannot tell why.
 */
function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(join(dataDir, 'content.git'))) return;
  process.stderr.write(`Note: ${dataDir} holds no content repository yet. This works only for a service started with HELP_DATA_DIR=${dataDir}; check the path if the service runs already.\n`);
}

/** The password on standard input, without the line end that `echo` or a pipe adds. */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (err) {
  const usage = err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS_') === true;
  process.stderr.write(`Error: ${(err as Error).message ?? String(err)}\n`);
  process.exitCode = usage ? 2 : 1;
}
