import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import yaml from 'js-yaml';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import { md, versionJson, writeFiles, type Problem } from './helpers/content.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { PROJECT, PUSH_CLI, runProcess, type Run } from './helpers/process.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const WORKFLOW = join(PROJECT, 'examples', 'content-repo', '.github', 'workflows', 'help-content.yml');
const TOOLS_PATH = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');

/** A valid version folder's files (paths inside the folder). */
function goodVersion(label: string): Record<string, string> {
  return {
    'version.json': versionJson({ label, languages: ['en', 'de'], nav: ['a', 'b'] }),
    'en/a.md': md('A', 'The first topic.\n'),
    'de/a.md': md('A auf Deutsch', 'Das erste Thema.\n'),
    'en/b.md': md('B', 'The second topic.\n'),
  };
}

/** A version folder with errors (broken YAML on line 3, a nav entry without a file, a file without a nav entry) and a warning. */
function brokenVersion(): Record<string, string> {
  return {
    'version.json': versionJson({ label: 'Broken', languages: ['en', 'de'], nav: ['a', 'b', 'missing'] }),
    'en/a.md': '---\ntitle: A\nsummary: a: b\n---\nBody.\n',
    'de/a.md': md('A auf Deutsch'),
    'en/b.md': md('B', 'Body.\n', 'author: someone\n'),
    'en/orphan.md': md('Orphan'),
  };
}

/** Runs a command without blocking the event loop (the server under test runs in this process). */
function run(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string> }): Promise<Run> {
  return runProcess(cmd, args, { cwd: opts.cwd, env: { PATH: TOOLS_PATH, HOME: tmpdir(), ...opts.env }, timeout: 90_000 });
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The service with the lock on published versions, and keys issued before the start. */
async function startService(gh: FakeGitHub): Promise<{ s: TestServer; publisher: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
  const publisher = (await createKey(new KeyFile(dataDir), { name: 'content-publisher', publisher: true })).key;
  const s = await startTestServer({
    dataDir,
    env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url },
  });
  return { s, publisher };
}

describe('The push command (bin/help-push.mjs push)', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  let repo: string;
  before(async () => {
    gh = await new FakeGitHub().start();
    ({ s, publisher } = await startService(gh));
    repo = mkdtempSync(join(tmpdir(), 'help-content-repo-'));
    writeFiles(join(repo, 'docs/v1'), goodVersion('Version 1'));
    writeFiles(join(repo, 'docs/v2'), goodVersion('Version 2'));
    writeFiles(join(repo, 'docs/bad'), brokenVersion());
  });
  after(async () => {
    await s.close();
    await gh.stop();
    rmSync(repo, { recursive: true, force: true });
  });

  const push = (args: string[], env: Record<string, string> = {}) => run(process.execPath, [PUSH_CLI, 'push', ...args], { cwd: repo, env: { HELP_URL: s.url, HELP_KEY: publisher, ...env } });

  test('a dry run checks the folder and writes nothing', async () => {
    const commits = s.commitCount();
    const r = await push(['--dir', 'docs/v2', '--version', 'v2', '--dry-run'], { HELP_KEY: s.key });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r.stderr), ['Checking 4 files (0.0 MB) from docs/v2 as version v2…'], 'the progress line, nothing else');
    assert.equal(lines(r.stdout).length, 1, r.stdout);
    assert.match(r.stdout, /^v2: 2 created, 0 updated, 0 deleted, 0 unchanged/);
    assert.match(r.stdout, /dry run/);
    assert.equal(s.commitCount(), commits, 'no commit');
    const versions = (await s.request('GET', '/versions')).body as Array<{ slug: string }>;
    assert.equal(versions.some((v) => v.slug === 'v2'), false, 'no version created');
  });

  test('a real run with the publisher key makes the version live, prints the summary and exits 0', async () => {
    const commits = s.commitCount();
    const r = await push(['--dir', 'docs/v1', '--version', 'v1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r.stderr), ['Publishing 4 files (0.0 MB) from docs/v1 as version v1…']);
    assert.equal(lines(r.stdout).length, 1, r.stdout);
    assert.match(r.stdout, /^v1: 2 created, 0 updated, 0 deleted, 0 unchanged; now published/);
    assert.equal(s.commitCount(), commits + 1);
    assert.equal(s.git('log', '-1', '--format=%an').trim(), 'content-publisher');
    const topic = await s.request('GET', '/versions/v1/topics/a?language=de', { key: null });
    assert.equal(topic.status, 200, topic.text);
    assert.equal(topic.body.title, 'A auf Deutsch');
    assert.equal(topic.body.bodyMd, 'Das erste Thema.\n');
  });

  test('pushing the same folder again reports everything unchanged', async () => {
    const r = await push(['--dir', 'docs/v1', '--version', 'v1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^v1: 0 created, 0 updated, 0 deleted, 2 unchanged/);
  });

  test('a real run with a normal key on a locked published version is refused: exit 1, nothing written', async () => {
    const commits = s.commitCount();
    const r = await push(['--dir', 'docs/v1', '--version', 'v1'], { HELP_KEY: s.key });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /published_read_only/);
    assert.equal(r.stdout, '');
    assert.equal(s.commitCount(), commits);
  });

  describe('broken content', () => {
    let expectedErrors: Problem[];
    let expectedWarnings: Problem[];
    before(async () => {
      // What the service says about the same files, sent with the paths as they are in the repository.
      const files = Object.entries(brokenVersion()).map(([path, content]) => ({ path: `docs/bad/${path}`, content }));
      const res = await s.request('POST', '/versions/bad/import-files?dryRun=true', { body: { files } });
      assert.equal(res.status, 400, res.text);
      expectedErrors = res.body.error.errors;
      expectedWarnings = res.body.error.warnings;
      assert.ok(expectedErrors.length >= 3 && expectedWarnings.length >= 1, res.text);
    });

    test('exit 1, and every error and warning on stderr as path:line: message, with the path as in the repository', async () => {
      const commits = s.commitCount();
      const r = await push(['--dir', 'docs/bad', '--version', 'bad', '--dry-run'], { HELP_KEY: s.key });
      assert.equal(r.code, 1, r.stderr);
      const err = lines(r.stderr);
      assert.equal(err[0], 'Checking 5 files (0.0 MB) from docs/bad as version bad…');
      const expected = [
        ...expectedErrors.map((p) => `${p.path}${p.line !== undefined ? `:${p.line}` : ''}: ${p.message}`),
        ...expectedWarnings.map((p) => `${p.path}${p.line !== undefined ? `:${p.line}` : ''}: warning: ${p.message}`),
      ];
      assert.deepEqual(err.slice(1, -1), expected, 'one line per problem, errors then warnings');
      assert.match(err.at(-1)!, /invalid_content/);
      // The lines a reader (and an editor's problem matcher) looks for.
      assert.ok(err.some((l) => /^docs\/bad\/en\/a\.md:3: .*YAML/i.test(l)), `broken YAML on line 3:\n${r.stderr}`);
      assert.ok(err.some((l) => /^docs\/bad\/en\/orphan\.md: .*orphan/.test(l)), `a problem without a line:\n${r.stderr}`);
      assert.ok(err.some((l) => /^docs\/bad\/version\.json:\d+: .*missing/.test(l)), `the nav entry without a file, on its line:\n${r.stderr}`);
      assert.ok(err.some((l) => /^docs\/bad\/en\/b\.md:3: warning: .*author/.test(l)), `the warning:\n${r.stderr}`);
      assert.equal(r.stdout, '', 'no annotations outside GitHub Actions');
      assert.equal(s.commitCount(), commits);
    });

    test('inside GitHub Actions the problems are also ::error / ::warning annotations on stdout', async () => {
      const r = await push(['--dir', 'docs/bad', '--version', 'bad', '--dry-run'], { HELP_KEY: s.key, GITHUB_ACTIONS: 'true' });
      assert.equal(r.code, 1, r.stderr);
      // GitHub's workflow command escaping: data escapes %, CR, LF; properties also : and ,.
      const data = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
      const property = (text: string) => data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
      const annotation = (kind: string, p: Problem) => `::${kind} file=${property(p.path)}${p.line !== undefined ? `,line=${p.line}` : ''}::${data(p.message)}`;
      const expected = [...expectedErrors.map((p) => annotation('error', p)), ...expectedWarnings.map((p) => annotation('warning', p))];
      assert.deepEqual(lines(r.stdout), expected);
      assert.ok(lines(r.stdout).some((l) => l.startsWith('::error file=docs/bad/en/a.md,line=3::')), r.stdout);
      assert.ok(lines(r.stdout).some((l) => l.startsWith('::warning file=docs/bad/en/b.md,line=3::')), r.stdout);
      assert.ok(lines(r.stderr).some((l) => l.startsWith('docs/bad/en/a.md:3: ')), 'the plain lines stay on stderr');
    });

    test('annotation properties are escaped as GitHub workflow commands require (a comma in a file name)', async () => {
      writeFiles(join(repo, 'docs/odd'), { 'version.json': versionJson({ languages: ['en'], nav: ['a'] }), 'en/a.md': md('A'), 'en/a,b.md': md('Typo') });
      const r = await push(['--dir', 'docs/odd', '--version', 'odd', '--dry-run'], { HELP_KEY: s.key, GITHUB_ACTIONS: 'true' });
      assert.equal(r.code, 1, r.stderr);
      assert.ok(lines(r.stderr).some((l) => l.startsWith('docs/odd/en/a,b.md: ')), r.stderr);
      // Unescaped, the runner would read file=docs/odd/en/a and drop "b.md" as a property.
      assert.ok(lines(r.stdout).some((l) => l.startsWith('::error file=docs/odd/en/a%2Cb.md::')), r.stdout);
    });

    test('a real run of broken content is refused the same way and writes nothing', async () => {
      const commits = s.commitCount();
      const r = await push(['--dir', 'docs/bad', '--version', 'bad']);
      assert.equal(r.code, 1, r.stderr);
      assert.ok(lines(r.stderr).some((l) => l.startsWith('docs/bad/en/a.md:3: ')), r.stderr);
      assert.equal(s.commitCount(), commits);
      assert.equal((await s.request('GET', '/versions/bad/tree')).status, 404);
    });
  });

  describe('usage errors exit 2 with a message', () => {
    for (const [what, args, env, mention] of [
      ['HELP_URL missing', ['--dir', 'docs/v1', '--version', 'v1'], { HELP_URL: '' }, /HELP_URL/],
      ['HELP_KEY missing', ['--dir', 'docs/v1', '--version', 'v1'], { HELP_KEY: '' }, /HELP_KEY/],
      ['--dir missing', ['--version', 'v1'], {}, /--dir/],
      ['--version missing', ['--dir', 'docs/v1'], {}, /--version/],
      ['--dir not a folder', ['--dir', 'docs/nowhere', '--version', 'v1'], {}, /docs\/nowhere/],
      ['an unknown option', ['--dir', 'docs/v1', '--version', 'v1', '--force'], {}, /force/],
    ] as const) {
      test(what, async () => {
        const commits = s.commitCount();
        const r = await push([...args], { ...env });
        assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
        assert.match(r.stderr, mention);
        assert.equal(s.commitCount(), commits);
      });
    }

    test('a command other than push', async () => {
      const r = await run(process.execPath, [PUSH_CLI, 'pull', '--dir', 'docs/v1', '--version', 'v1'], { cwd: repo, env: { HELP_URL: s.url, HELP_KEY: s.key } });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /push/);
    });
  });

  test('an unreachable HELP_URL exits 1 with a message', async () => {
    const port = await closedPort();
    const r = await push(['--dir', 'docs/v1', '--version', 'v1'], { HELP_URL: `http://127.0.0.1:${port}/help/v1` });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.equal(r.stdout, '');
  });

  test('a wrong key exits 1 naming the refusal', async () => {
    const r = await push(['--dir', 'docs/v1', '--version', 'v1', '--dry-run'], { HELP_KEY: 'hcs_not_a_real_key_000000000000000000' });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /401/);
    assert.match(r.stderr, /unauthorized/);
  });

  describe('npm run --silent cli -- push', () => {
    test('pushes a folder of the checkout (the sample content) as a dry run', async () => {
      const commits = s.commitCount();
      const r = await run('npm', ['run', '--silent', 'cli', '--', 'push', '--dir', 'content-sample/v1', '--version', 'sample', '--dry-run'], {
        cwd: PROJECT,
        env: { HELP_URL: s.url, HELP_KEY: s.key },
      });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /^sample: \d+ created, 0 updated, 0 deleted, 0 unchanged \(dry run/m);
      assert.match(r.stderr, /^Checking \d+ files \(0\.\d MB\) from content-sample\/v1 as version sample…$/m);
      assert.equal(s.commitCount(), commits);
    });

    test('pushes a content folder given by its absolute path', async () => {
      const r = await run('npm', ['run', '--silent', 'cli', '--', 'push', '--dir', join(repo, 'docs', 'v2'), '--version', 'v2', '--dry-run'], {
        cwd: PROJECT,
        env: { HELP_URL: s.url, HELP_KEY: s.key },
      });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /^v2: 2 created, 0 updated, 0 deleted, 0 unchanged \(dry run/m);
    });
  });
});

describe('GET /cli/help-push.mjs', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('serves exactly bin/help-push.mjs, to anyone, as JavaScript', async () => {
    const res = await fetch(`${s.url}/cli/help-push.mjs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /javascript/);
    assert.equal(await res.text(), readFileSync(PUSH_CLI, 'utf8'));
  });
});

describe('The content repository workflow (examples/content-repo/.github/workflows/help-content.yml)', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  let repo: string;
  let runnerTemp: string;
  let workflow: any;
  const commits: string[] = [];

  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      env: { PATH: TOOLS_PATH, HOME: runnerTemp, GIT_AUTHOR_NAME: 'Editor', GIT_AUTHOR_EMAIL: 'editor@example.org', GIT_COMMITTER_NAME: 'Editor', GIT_COMMITTER_EMAIL: 'editor@example.org', GIT_CONFIG_NOSYSTEM: '1' },
    }).trim();
  const commit = (message: string) => {
    git('add', '-A');
    git('commit', '-q', '-m', message);
    const sha = git('rev-parse', 'HEAD');
    commits.push(sha);
    return sha;
  };

  /** Runs a job's `run:` steps as the runner would (bash -e), in the checkout. */
  async function runJob(job: string, env: { HELP_KEY: string; BASE_SHA: string }): Promise<Run> {
    const steps = (workflow.jobs[job].steps as Array<{ run?: string }>).filter((st) => typeof st.run === 'string');
    assert.ok(steps.length > 0, `${job} has run steps`);
    const out: Run = { code: 0, stdout: '', stderr: '' };
    for (const step of steps) {
      const r = await run('bash', ['-e', '-c', step.run!], {
        cwd: repo,
        env: { HELP_URL: s.url, RUNNER_TEMP: runnerTemp, GITHUB_ACTIONS: 'true', ...env },
      });
      out.stdout += r.stdout;
      out.stderr += r.stderr;
      out.code = r.code;
      if (r.code !== 0) break;
    }
    return out;
  }

  before(async () => {
    workflow = yaml.load(readFileSync(WORKFLOW, 'utf8'));
    gh = await new FakeGitHub().start();
    ({ s, publisher } = await startService(gh));
    repo = mkdtempSync(join(tmpdir(), 'help-content-checkout-'));
    runnerTemp = mkdtempSync(join(tmpdir(), 'help-runner-temp-'));
    git('init', '-q', '-b', 'main');
    writeFiles(join(repo, 'docs/v1'), goodVersion('Version 1'));
    writeFiles(join(repo, 'docs/v2'), goodVersion('Version 2'));
    writeFileSync(join(repo, 'README.md'), '# Help content\n');
    commit('Base content');
    // v1 is live on the service already (as the base commit says).
    const files = Object.entries(goodVersion('Version 1')).map(([path, content]) => ({ path: `docs/v1/${path}`, content }));
    const res = await s.request('POST', '/versions/v1/import-files', { body: { files }, key: publisher });
    assert.equal(res.status, 200, res.text);
  });
  after(async () => {
    await s.close();
    await gh.stop();
    rmSync(repo, { recursive: true, force: true });
    rmSync(runnerTemp, { recursive: true, force: true });
  });

  test('runs on pull requests and on pushes to main that touch docs/**', () => {
    assert.deepEqual(workflow.on.pull_request.paths, ['docs/**']);
    assert.deepEqual(workflow.on.push.branches, ['main']);
    assert.deepEqual(workflow.on.push.paths, ['docs/**']);
    assert.match(workflow.jobs.check.if, /github\.event_name == 'pull_request'/);
    assert.match(workflow.jobs.publish.if, /github\.event_name == 'push'/);
    const envOf = (job: string) => (workflow.jobs[job].steps as Array<{ run?: string; env?: Record<string, string> }>).find((st) => st.run)!.env!;
    assert.match(envOf('check').HELP_KEY, /secrets\.HELP_KEY\b/);
    assert.match(envOf('publish').HELP_KEY, /secrets\.HELP_PUBLISHER_KEY\b/, 'real runs use the publisher key');
    assert.match(envOf('check').BASE_SHA, /pull_request\.base\.sha/);
    assert.match(envOf('publish').BASE_SHA, /github\.event\.before/);
    for (const job of ['check', 'publish']) {
      const checkout = (workflow.jobs[job].steps as Array<{ uses?: string; with?: Record<string, unknown> }>).find((st) => st.uses?.startsWith('actions/checkout'));
      assert.equal(checkout?.with?.['fetch-depth'], 0, `${job} fetches the history it diffs against`);
    }
  });

  describe('a change to docs/v1', () => {
    let base: string;
    before(() => {
      base = commits.at(-1)!;
      writeFileSync(join(repo, 'docs/v1/en/a.md'), md('A', 'Changed in review.\n'));
      commit('Rewrite topic a');
    });

    test('check exits 0 on good content, checks only the changed version and writes nothing', async () => {
      const before = s.commitCount();
      const r = await runJob('check', { HELP_KEY: s.key, BASE_SHA: base });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, /^Checking 4 files \(0\.0 MB\) from docs\/v1 as version v1…$/m);
      assert.doesNotMatch(r.stderr, /docs\/v2/, 'v2 did not change');
      assert.match(r.stdout, /^v1: 0 created, 1 updated, 0 deleted, 1 unchanged \(dry run/m);
      assert.equal(s.commitCount(), before, 'nothing written');
      assert.equal((await s.request('GET', '/versions/v1/topics/a', { key: null })).body.bodyMd, 'The first topic.\n');
    });

    test('publish exits 0 and the service then serves the changed content', async () => {
      const r = await runJob('publish', { HELP_KEY: publisher, BASE_SHA: base });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /^v1: 0 created, 1 updated, 0 deleted, 1 unchanged; now published/m);
      const topic = await s.request('GET', '/versions/v1/topics/a', { key: null });
      assert.equal(topic.body.bodyMd, 'Changed in review.\n');
      const versions = (await s.request('GET', '/versions')).body as Array<{ slug: string }>;
      assert.equal(versions.some((v) => v.slug === 'v2'), false, 'v2 did not change, so it was not posted');
    });
  });

  describe('a change that breaks a file', () => {
    let base: string;
    before(() => {
      base = commits.at(-1)!;
      writeFileSync(join(repo, 'docs/v1/en/b.md'), '---\ntitle: B\nsummary: a: b\n---\nBody.\n');
      commit('Break topic b');
    });

    test('check exits non-zero with the errors (and annotations) in its output, and writes nothing', async () => {
      const before = s.commitCount();
      const r = await runJob('check', { HELP_KEY: s.key, BASE_SHA: base });
      assert.notEqual(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, /^docs\/v1\/en\/b\.md:3: .*YAML/im);
      assert.match(r.stdout, /^::error file=docs\/v1\/en\/b\.md,line=3::/m);
      assert.equal(s.commitCount(), before);
    });

    test('publish exits non-zero and the live content stays as it was', async () => {
      const before = s.commitCount();
      const r = await runJob('publish', { HELP_KEY: publisher, BASE_SHA: base });
      assert.notEqual(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, /^docs\/v1\/en\/b\.md:3: /m);
      assert.equal(s.commitCount(), before);
      assert.equal((await s.request('GET', '/versions/v1/topics/b', { key: null })).body.bodyMd, 'The second topic.\n');
    });
  });

  describe('a change that deletes a version folder', () => {
    let base: string;
    before(() => {
      base = commits.at(-1)!;
      writeFileSync(join(repo, 'docs/v1/en/b.md'), md('B', 'Fixed.\n'));
      rmSync(join(repo, 'docs/v2'), { recursive: true });
      commit('Fix b, drop v2');
    });

    test('check skips the deleted folder and checks the rest', async () => {
      const r = await runJob('check', { HELP_KEY: s.key, BASE_SHA: base });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /docs\/v2/);
      assert.match(r.stderr, /from docs\/v1 as version v1…/);
    });

    test('publish skips the deleted folder and publishes the rest', async () => {
      const before = s.commitCount();
      const r = await runJob('publish', { HELP_KEY: publisher, BASE_SHA: base });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(`${r.stdout}${r.stderr}`, /docs\/v2|\bv2\b/);
      assert.equal(s.commitCount(), before + 1, 'one import: v1');
      assert.equal((await s.request('GET', '/versions/v1/topics/b', { key: null })).body.bodyMd, 'Fixed.\n');
      const versions = (await s.request('GET', '/versions')).body as Array<{ slug: string }>;
      assert.equal(versions.some((v) => v.slug === 'v2'), false);
    });
  });
});
