import { ACCOUNT_NAME_PATTERN, AccountFile, hashPassword, nameTaken, newPassword, passwordProblem, ROLES, withRole, type Account, type Role } from '../auth/accounts.ts';
import { CliError, UsageError } from './keys.ts';

export function parseRole(value: string | undefined, command: string): Role {
  if (value === undefined) throw new UsageError(`accounts ${command} needs --role ${ROLES.join('|')}`);
  if (!(ROLES as readonly string[]).includes(value)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}; got ${JSON.stringify(value)}`);
  return value as Role;
}

export function checkName(name: string | undefined, command: string): string {
  if (name === undefined) throw new UsageError(`accounts ${command} needs --name NAME`);
  if (!ACCOUNT_NAME_PATTERN.test(name)) throw new UsageError(`--name must be 1–64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit; got ${JSON.stringify(name)}`);
  return name;
}

function checkPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem) throw new CliError(problem);
  return password;
}

/** What is shown of an account: never its password hash. */
export const describeAccount = (a: Account) => ({
  name: a.name,
  role: a.role,
  signIn: a.password ? 'password' : a.upstream ? `upstream ${a.upstream.issuer}` : 'none',
  disabled: a.disabled,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

function change(file: AccountFile, name: string, fn: (a: Account) => Account): Promise<Account> {
  return file.update((accounts) => {
    const at = accounts.findIndex((a) => a.name === name);
    if (at < 0) throw new CliError(`No account named "${name}"`);
    const next = fn(accounts[at]);
    return { accounts: accounts.map((a, i) => (i === at ? next : a)), result: next };
  });
}

/** Creates an account with the password given, or a generated one (returned here, once). */
export async function createAccount(file: AccountFile, opts: { name?: string; role?: string; password?: string }, now = new Date().toISOString()) {
  const name = checkName(opts.name, 'create');
  const role = parseRole(opts.role, 'create');
  const generated = opts.password === undefined;
  const password = generated ? newPassword() : checkPassword(opts.password!);
  const account: Account = { name, role, password: await hashPassword(password), upstream: null, disabled: false, createdAt: now, updatedAt: now };
  await file.update((accounts) => {
    const taken = nameTaken(accounts, name);
    if (taken) throw new CliError(taken.name === name ? `An account named "${name}" exists; choose another name` : `An account named "${taken.name}" exists, which differs from "${name}" only in case; choose another name`);
    return { accounts: [...accounts, account], result: undefined };
  });
  return { ...describeAccount(account), ...(generated ? { password } : {}) };
}

export async function setRole(file: AccountFile, opts: { name?: string; role?: string }, now = new Date().toISOString()) {
  const name = checkName(opts.name, 'set-role');
  const role = parseRole(opts.role, 'set-role');
  // A new role ends what the account granted with the old one (its clients' grants and tokens).
  return describeAccount(await change(file, name, (a) => withRole(a, role, now)));
}

export async function setPassword(file: AccountFile, opts: { name?: string; password?: string }, now = new Date().toISOString()) {
  const name = checkName(opts.name, 'set-password');
  if (opts.password === undefined) throw new UsageError('accounts set-password needs --password-stdin (the new password on standard input)');
  const password = await hashPassword(checkPassword(opts.password));
  return describeAccount(await change(file, name, (a) => ({ ...a, password, updatedAt: now })));
}

/** Disables an account: it can no longer sign in (kept, so its name stays taken and its history readable). */
export async function disableAccount(file: AccountFile, opts: { name?: string }, now = new Date().toISOString()) {
  const name = checkName(opts.name, 'disable');
  return describeAccount(await change(file, name, (a) => ({ ...a, disabled: true, updatedAt: now })));
}
