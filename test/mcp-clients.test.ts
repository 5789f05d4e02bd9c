import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { PROJECT, runProcess } from './helpers/process.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

/** The client snippets of the tool server's guide, in the order they appear. */
const GUIDE = readFileSync(new URL('../docs/tool-server.md', import.meta.url), 'utf8');
const SNIPPETS = [...GUIDE.slice(GUIDE.indexOf('## Connecting a client')).matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, lang, code]) => ({ lang, code }));
/** The address the guide writes, that of `npm start`. */
const DOC_ORIGIN = 'http://127.0.0.1:8080';

/** How a client is told the endpoint and the key, as its snippet writes them. */
interface Connection {
  client: string;
  url: string;
  header: string;
  /** The header's value with the placeholder the client fills in (`${input:…}`, `${env:…}`, `$HELP_KEY`). */
  value: string;
}

/** The connections the snippets configure; each is checked for the shape its client reads. */
function connections(): Connection[] {
  const found: Connection[] = [];
  for (const { lang, code } of SNIPPETS) {
    if (lang === 'sh') {
      const m = /^claude mcp add --transport http (\S+) (\S+) --header "([^:"]+): ([^"]+)"$/m.exec(code);
      assert.ok(m, `a claude mcp add command: ${code}`);
      found.push({ client: 'Claude Code', url: m[2], header: m[3], value: m[4] });
    }
    if (lang !== 'json') continue;
    const config = JSON.parse(code);
    if (config.servers) {
      const [server] = Object.values(config.servers) as Array<{ type: string; url: string; headers: Record<string, string> }>;
      assert.equal(server.type, 'http', 'VS Code names the transport');
      const [input] = config.inputs as Array<{ id: string; type: string; password: boolean }>;
      assert.deepEqual([input.type, input.password], ['promptString', true]);
      assert.ok(server.headers.Authorization.includes(`\${input:${input.id}}`), 'the header takes the key asked for');
      found.push({ client: 'VS Code', url: server.url, header: 'Authorization', value: server.headers.Authorization });
      continue;
    }
    const [server] = Object.values(config.mcpServers) as Array<{ url?: string; headers?: Record<string, string>; command?: string; args?: string[]; env?: Record<string, string> }>;
    if (server.command !== undefined) {
      // A bridge: the header is an argument whose value comes from env.
      assert.deepEqual([server.command, server.args!.includes('mcp-remote')], ['npx', true]);
      const header = server.args![server.args!.indexOf('--header') + 1];
      const [, name, variable] = /^([^:]+):\$\{(\w+)\}$/.exec(header)!;
      found.push({ client: 'Claude Desktop (mcp-remote)', url: server.args!.find((a) => a.startsWith('http'))!, header: name, value: server.env![variable] });
    } else {
      found.push({ client: 'Cursor', url: server.url!, header: 'Authorization', value: server.headers!.Authorization });
    }
  }
  return found;
}

describe('Connecting a client (docs/tool-server.md)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v2', { languages: ['en', 'de'] });
    await createNode(s, 'v2', { slug: 'install', translations: { en: { title: 'Install', bodyMd: '## Download\n\nGet the installer.\n' }, de: { title: 'Installieren', bodyMd: 'Alt.\n' } } });
    const published = await s.request('PATCH', '/versions/v2', { body: { status: 'published', isLatest: true } });
    assert.equal(published.status, 200, published.text);
  });
  after(() => s.close());

  test('every client snippet parses and names the endpoint and the Authorization header, which answer tools/list with the key', async () => {
    const found = connections();
    assert.deepEqual(found.map((c) => c.client).sort(), ['Claude Code', 'Claude Desktop (mcp-remote)', 'Cursor', 'VS Code']);
    const origin = new URL(s.url).origin;
    for (const c of found) {
      const url = new URL(c.url);
      assert.equal(`${url.origin}${url.pathname}`, `${DOC_ORIGIN}${loadConfig({}).mcpPath}`, c.client);
      assert.equal(c.header, 'Authorization', c.client);
      assert.match(c.value, /^Bearer (\$\{(input|env):[\w-]+\}|\$HELP_KEY|hcs_\.\.\.)$/, c.client);
      // The snippet's endpoint and header, on this server and with a real key.
      const client = new Client({ name: c.client, version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(c.url.replace(DOC_ORIGIN, origin)), { requestInit: { headers: { [c.header]: `Bearer ${s.key}` } } }));
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('put_translation'), `${c.client}: the key is taken, the write tools are shown`);
      await client.close();
    }
  });

  test('the tool list costs what the guide says, within a tenth, and less than before for more tools', async () => {
    const rows = new Map([...GUIDE.matchAll(/^\| (before|now), (a key with `help:write`|anonymous \(reads only\)) \| (\d+) \| ([\d,]+) \|/gm)].map(([, when, who, tools, chars]) => [`${when} ${who.startsWith('a key') ? 'key' : 'anonymous'}`, { tools: Number(tools), chars: Number(chars.replaceAll(',', '')) }]));
    assert.equal(rows.size, 4);
    for (const [who, key] of [['key', s.key], ['anonymous', null]] as const) {
      const client = new Client({ name: 'size', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', s.url), { requestInit: { headers: key === null ? {} : { authorization: `Bearer ${key}` } } }));
      const { tools } = await client.listTools();
      const chars = JSON.stringify(tools).length + (client.getInstructions() ?? '').length;
      await client.close();
      const now = rows.get(`now ${who}`)!;
      const before = rows.get(`before ${who}`)!;
      assert.equal(tools.length, now.tools, who);
      assert.ok(Math.abs(chars - now.chars) <= now.chars / 10, `${who}: ${chars} characters, the guide says ${now.chars} (npx tsx bench/tool-list.ts measures it)`);
      assert.ok(chars < before.chars && tools.length >= before.tools, who);
    }
  });

  test('the SDK script runs as written: it searches, reads the best hit and writes a translation', async () => {
    const scripts = SNIPPETS.filter((b) => b.lang === 'js' && b.code.includes('requestInit'));
    assert.equal(scripts.length, 1);
    const code = scripts[0].code.replaceAll(DOC_ORIGIN, new URL(s.url).origin);
    const run = await runProcess(process.execPath, ['--input-type=module', '-e', code], { cwd: PROJECT, env: { PATH: process.env.PATH, HELP_KEY: s.key }, timeout: 30_000 });
    assert.equal(run.code, 0, run.stderr);
    const [count, ...page] = run.stdout.split('\n');
    assert.match(count, /^\d+ tools$/);
    assert.equal(page.join('\n'), '# Install\n\n## Download\n\nGet the installer.\n\n');
    const de = await s.request('GET', '/versions/v2/topics/install/translations/de');
    assert.deepEqual([de.body.title, de.body.bodyMd], ['Installieren', '## Herunterladen\n\nLaden Sie das Installationsprogramm.\n']);
  });
});
