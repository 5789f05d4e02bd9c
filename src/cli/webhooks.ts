import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isVersionSlug } from '../domain/names.ts';
import { AllowList, urlProblem } from '../webhooks/addresses.ts';
import { webhookConfig } from '../webhooks/config.ts';
import { WEBHOOK_EVENTS } from '../webhooks/events.ts';
import { DeliveryQueue } from '../webhooks/queue.ts';
import { presentSubscription, SubscriptionFile } from '../webhooks/subscriptions.ts';
import { CliError, UsageError } from './keys.ts';

export const WEBHOOKS_USAGE = `  webhooks create --url URL --events EVENT,... [--versions V,...] [--json]
      Subscribe a URL to events (${WEBHOOK_EVENTS.join(', ')}). The signing
      secret is printed once. HELP_WEBHOOK_ALLOW_HOSTS applies as it does for the service.
  webhooks list [--json]
      List subscriptions (never their secrets), with why one was disabled.
  webhooks delete --id ID
      Delete a subscription; a running server stops delivering to it at once.
  webhooks deliveries --id ID [--json]
      The delivery log of a subscription: each attempt's status, timing and outcome.
`;

const OPTIONS: Record<string, string[]> = {
  create: ['url', 'events', 'versions', 'json'],
  list: ['json'],
  delete: ['id', 'json'],
  deliveries: ['id', 'json'],
};

/** `webhooks <command>`: subscriptions in webhooks.json, safe while the server runs (it rereads the file when it changes). */
export async function webhooksMain(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { url: { type: 'string' }, events: { type: 'string' }, versions: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean' }, 'data-dir': { type: 'string' } },
  });
  const [command, extra] = positionals;
  const takes = OPTIONS[command ?? ''];
  if (takes === undefined) throw new UsageError(command === undefined ? 'webhooks needs a command: create, list, delete or deliveries' : `Unknown command "webhooks ${command}"`);
  if (extra !== undefined) throw new UsageError(`webhooks ${command} takes no argument "${extra}" (options start with --)`);
  const wrong = Object.keys(values).find((o) => o !== 'data-dir' && !takes.includes(o));
  if (wrong !== undefined) throw new UsageError(`webhooks ${command} does not take --${wrong} (it takes ${[...takes, 'data-dir'].map((o) => `--${o}`).join(', ')})`);
  const dataDir = resolve(values['data-dir'] ?? (process.env.HELP_DATA_DIR || 'data'));
  if (!existsSync(dataDir)) throw new CliError(`No data directory at ${dataDir} (give --data-dir DIR or set HELP_DATA_DIR)`);
  const file = new SubscriptionFile(dataDir);
  const print = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  const id = () => {
    if (!values.id) throw new UsageError(`webhooks ${command} needs --id ID (see webhooks list)`);
    if (!file.read().some((s) => s.id === values.id)) throw new CliError(`No webhook subscription ${values.id}`);
    return values.id;
  };

  switch (command) {
    case 'create': {
      const input = createInput(values);
      const s = await file.create(input, 'cli', new Date().toISOString());
      print({ webhook: presentSubscription(s), secret: s.secret }, `Subscribed ${s.url} to ${s.events.join(', ')}${s.versions ? ` of ${s.versions.join(', ')}` : ''} (id ${s.id}). Signing secret:\n\n  ${s.secret}\n\nStore it now: it is not shown again.`);
      return 0;
    }
    case 'list': {
      const list = file.read().map(presentSubscription);
      const rows = list.map((w) => `${w.id}\t${w.url}\t${w.events.join(',')}\t${w.versions?.join(',') ?? 'all versions'}\t${w.enabled ? 'enabled' : `disabled ${w.disabledAt}: ${w.disabledReason}`}`);
      print(list, rows.length ? rows.join('\n') : 'No webhook subscriptions.');
      return 0;
    }
    case 'delete': {
      const which = id();
      await file.remove(which);
      print({ ok: true, deleted: which }, `Deleted webhook subscription ${which}.`);
      return 0;
    }
    default: {
      const which = id();
      const queue = new DeliveryQueue(dataDir);
      const log = [...queue.log(which)].reverse();
      const pending = queue.pending().filter((p) => p.subscription === which).length;
      const rows = log.map((d) => `${d.at}\t${d.id}\t${d.type}\tattempt ${d.attempt}\t${d.status ?? '-'}\t${d.ms} ms\t${d.outcome}${d.error ? `\t${d.error}` : ''}`);
      print({ pending, deliveries: log }, `${pending} waiting.${rows.length ? `\n${rows.join('\n')}` : ''}`);
      return 0;
    }
  }
}

function createInput(values: { url?: string; events?: string; versions?: string }) {
  if (!values.url) throw new UsageError('webhooks create needs --url URL');
  if (!values.events) throw new UsageError(`webhooks create needs --events, a comma-separated list of ${WEBHOOK_EVENTS.join(', ')}`);
  const events = values.events.split(',').map((e) => e.trim()).filter(Boolean);
  const unknown = events.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (events.length === 0 || unknown.length > 0) throw new UsageError(`--events takes a comma-separated list of ${WEBHOOK_EVENTS.join(', ')}; unknown: ${unknown.join(', ') || '(none given)'}`);
  const versions = values.versions?.split(',').map((v) => v.trim()).filter(Boolean) ?? [];
  const bad = versions.find((v) => !isVersionSlug(v));
  if (bad !== undefined) throw new UsageError(`--versions takes version slugs separated by commas; ${JSON.stringify(bad)} is not one`);
  const allow = new AllowList(webhookConfig(process.env, (message) => new CliError(message)).allowHosts);
  const problem = urlProblem(values.url, allow);
  if (problem !== null) throw new UsageError(`--url ${problem}`);
  return { url: values.url, events, versions };
}
