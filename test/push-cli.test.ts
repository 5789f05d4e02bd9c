import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { md, versionJson, writeFiles, type Problem } from './helpers/content.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { PROJECT } from './helpers/process.ts';
import type { AppError } from '../src/errors.ts';
import { pushScriptLoader } from '../src/routes/push-script.ts';
import { brokenVersion, closedPort, fetchPushScript, goodVersion, lines, run, startLockedService } from './helpers/push-script.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

describe('The push command (help-push.mjs push, as the service serves it)', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  let repo: string;
  let script: string;
  before(async () => {
    gh = await new FakeGitHub().start();
    ({ s, publisher } = await startLockedService(gh));
    script = await fetchPushScript(s.url);
    repo = mkdtempSync(join(tmpdir(), 'help-content-repo-'));
    writeFiles(join(repo, 'docs/v1'), goodVersion('Version 1'));
    writeFiles(join(repo, 'docs/v2'), goodVersion('Version 2'));
    writeFiles(join(repo, 'docs/bad'), brokenVersion());
  });
  after(async () => {
    await s.close();
    await gh.stop();
    rmSync(repo, { recursive: true, force: true });
    rmSync(dirname(script), { recursive: true, force: true });
  });

  const push = (args: string[], env: Record<string, string | undefined> = {}) => run(process.execPath, [script, 'push', ...args], { cwd: repo, env: { HELP_URL: s.url, HELP_KEY: publisher, ...env } });

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

  describe('--offline: the files checked here, by the code the service runs, with no service', () => {
    // No HELP_URL and no HELP_KEY: nothing to send anything to.
    const offline = (args: string[], env: Record<string, string> = {}) => run(process.execPath, [script, 'push', ...args, '--offline'], { cwd: repo, env });
    const problemLines = (text: string) => lines(text).filter((l) => l.startsWith('docs/'));

    test('broken content: exit 1 and exactly the problems a dry run on the service reports, as lines and as annotations', async () => {
      const online = await push(['--dir', 'docs/bad', '--version', 'bad', '--dry-run'], { HELP_KEY: s.key, GITHUB_ACTIONS: 'true' });
      const commits = s.commitCount();
      const r = await offline(['--dir', 'docs/bad', '--version', 'bad'], { GITHUB_ACTIONS: 'true' });
      assert.equal(r.code, 1, r.stderr);
      assert.equal(online.code, 1, online.stderr);
      assert.ok(problemLines(online.stderr).length >= 4, online.stderr);
      assert.deepEqual(problemLines(r.stderr), problemLines(online.stderr));
      assert.deepEqual(lines(r.stdout), lines(online.stdout), 'the same annotations');
      const err = lines(r.stderr);
      assert.equal(err[0], 'Checking 5 files (0.0 MB) from docs/bad as version bad (offline)…');
      assert.match(err.at(-1)!, /^bad: refused \(invalid_content, offline check\): 3 problem\(s\) in the content files$/);
      assert.equal(s.commitCount(), commits);
    });

    test('good content: exit 0, one line saying what was checked and that nothing was sent', async () => {
      const r = await offline(['--dir', 'docs/v2', '--version', 'v2']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(lines(r.stderr), ['Checking 4 files (0.0 MB) from docs/v2 as version v2 (offline)…']);
      assert.deepEqual(lines(r.stdout), ['v2: valid, 2 node(s) in en, de (offline check: nothing sent)']);
    });

    test('the limits of import-files apply, with the message the service gives', async () => {
      const files: Record<string, string> = { 'version.json': versionJson({ languages: ['en'], nav: ['a'] }), 'en/a.md': md('A') };
      for (let i = 0; i < 2000; i++) files[`notes/n${i}.txt`] = 'x';
      writeFiles(join(repo, 'docs/huge'), files);
      const online = await push(['--dir', 'docs/huge', '--version', 'huge', '--dry-run'], { HELP_KEY: s.key });
      const r = await offline(['--dir', 'docs/huge', '--version', 'huge']);
      assert.equal(r.code, 1, r.stderr);
      const said = (text: string) => /limit_exceeded.*?: (.*)$/m.exec(text)?.[1];
      assert.equal(said(r.stderr), 'At most 2000 files per import; 2002 were sent');
      assert.equal(said(r.stderr), said(online.stderr), online.stderr);
      rmSync(join(repo, 'docs/huge'), { recursive: true });
    });

    test('"---js" front matter is refused on its line 1 and never evaluated', async () => {
      const marker = join(repo, 'evaluated');
      const evaluating = `{ title: (require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'), 'Owned') }`;
      writeFiles(join(repo, 'docs/hostile'), { 'version.json': versionJson({ languages: ['en'], nav: ['a', 'b'] }), 'en/a.md': md('A'), 'en/b.md': `---js\n${evaluating}\n---\nBody\n` });
      const r = await offline(['--dir', 'docs/hostile', '--version', 'hostile']);
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(problemLines(r.stderr), ['docs/hostile/en/b.md:1: front matter must open with a line of exactly "---" (YAML); "---js" asks for another language, and only YAML front matter is read']);
      assert.equal(existsSync(marker), false, 'the front matter was evaluated');
      rmSync(join(repo, 'docs/hostile'), { recursive: true });
    });

    test('a file that is not UTF-8 is refused in every mode, named, and nothing is sent: its bytes would be stored as U+FFFD', async () => {
      writeFiles(join(repo, 'docs/latin1'), goodVersion('Latin'));
      writeFileSync(join(repo, 'docs/latin1/en/a.md'), Buffer.concat([Buffer.from('---\ntitle: Caf'), Buffer.from([0xe9]), Buffer.from('\n---\nBody\n')]));
      const commits = s.commitCount();
      for (const mode of [['--offline'], ['--dry-run'], []]) {
        const r = await push(['--dir', 'docs/latin1', '--version', 'latin1', ...mode], { HELP_KEY: s.key });
        assert.equal(r.code, 1, `${mode.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /docs\/latin1\/en\/a\.md:2: is not UTF-8: byte 0xE9 starts no UTF-8 character here/);
      }
      assert.equal(s.commitCount(), commits);
      assert.equal((await s.request('GET', '/versions/latin1/tree')).status, 404);
      rmSync(join(repo, 'docs/latin1'), { recursive: true });
    });

    test('a --version that is not a version slug is a usage error, in every mode, before anything is read or sent', async () => {
      writeFiles(join(repo, 'docs/Not_A_Slug'), goodVersion('Odd'));
      for (const [version, said] of [['Not_A_Slug', /^--version "Not_A_Slug" is not a version slug: lowercase letters and digits/], ['latest', /^--version "latest" is "latest", which the service keeps/]] as const) {
        for (const mode of [['--offline'], ['--dry-run'], []]) {
          const r = await push(['--dir', 'docs/Not_A_Slug', '--version', version, ...mode], { HELP_KEY: s.key });
          assert.equal(r.code, 2, `${mode.join(' ')}: ${r.stderr}`);
          assert.match(r.stderr, said);
          assert.doesNotMatch(r.stderr, /undefined/);
        }
      }
      rmSync(join(repo, 'docs/Not_A_Slug'), { recursive: true });
    });

    test('images beside the content are left out with a warning, and a symbolic link is not followed', async () => {
      writeFiles(join(repo, 'docs/pics'), goodVersion('Pictures'));
      writeFileSync(join(repo, 'docs/pics/logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]));
      symlinkSync('/etc/hostname', join(repo, 'docs/pics/en/secret.md'));
      const r = await push(['--dir', 'docs/pics', '--version', 'pics', '--dry-run'], { HELP_KEY: s.key });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(lines(r.stderr).includes('docs/pics/logo.png: warning: not a content file ({lang}/{slug}.md or version.json) and is ignored'), r.stderr);
      assert.ok(lines(r.stderr).includes('docs/pics/en/secret.md: warning: is a symbolic link and is not read: commit the file itself'), r.stderr);
      rmSync(join(repo, 'docs/pics'), { recursive: true });
    });
  });

  describe('a version.json that says "draft", which a real run publishes anyway', () => {
    const warning = 'docs/draft/version.json:3: warning: "status" is "draft", but importing these files publishes the version (its status becomes "published"); write "status": "published" to say so';
    before(() => writeFiles(join(repo, 'docs/draft'), goodVersion('Draft', { status: 'draft' })));

    test('a dry run warns on the line of "status", and passes', async () => {
      const r = await push(['--dir', 'docs/draft', '--version', 'draft', '--dry-run'], { HELP_KEY: s.key, GITHUB_ACTIONS: 'true' });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(lines(r.stderr).includes(warning), r.stderr);
      assert.ok(lines(r.stdout).some((l) => l.startsWith('::warning file=docs/draft/version.json,line=3::"status" is "draft"')), r.stdout);
    });

    test('the offline check gives the same warning', async () => {
      const r = await run(process.execPath, [script, 'push', '--dir', 'docs/draft', '--version', 'draft', '--offline'], { cwd: repo, env: {} });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(lines(r.stderr).includes(warning), r.stderr);
    });

    test('a real run warns too, and the version is published', async () => {
      const r = await push(['--dir', 'docs/draft', '--version', 'draft']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(lines(r.stderr).includes(warning), r.stderr);
      assert.match(r.stdout, /^draft: 2 created, 0 updated, 0 deleted, 0 unchanged; now published/);
      assert.equal((await s.request('GET', '/versions/draft/tree', { key: null })).status, 200, 'readable without a key: published');
    });

    test('no warning when version.json says "published", or gives no status', async () => {
      writeFiles(join(repo, 'docs/plain'), goodVersion('Plain'));
      writeFiles(join(repo, 'docs/said'), goodVersion('Said', { status: 'published' }));
      for (const v of ['plain', 'said']) {
        const r = await run(process.execPath, [script, 'push', '--dir', `docs/${v}`, '--version', v, '--offline'], { cwd: repo, env: {} });
        assert.equal(r.code, 0, r.stderr);
        assert.doesNotMatch(r.stderr, /warning/, r.stderr);
      }
    });
  });

  describe('usage errors exit 2 with a message', () => {
    for (const [what, args, env, mention] of [
      ['HELP_URL missing', ['--dir', 'docs/v1', '--version', 'v1'], { HELP_URL: '' }, /HELP_URL/],
      ['HELP_KEY missing', ['--dir', 'docs/v1', '--version', 'v1'], { HELP_KEY: '' }, /HELP_KEY/],
      // Named, never quoted: a key copied with a line break would otherwise be printed into the CI log.
      ['HELP_KEY with a line break', ['--dir', 'docs/v1', '--version', 'v1', '--dry-run'], { HELP_KEY: 'hcs_secret_part\nrest' }, /^(?![\s\S]*hcs_secret_part)[\s\S]*HELP_KEY holds white space/],
      ['--dir missing', ['--version', 'v1'], {}, /--dir/],
      ['--version missing', ['--dir', 'docs/v1'], {}, /--version/],
      ['--dir not a folder', ['--dir', 'docs/nowhere', '--version', 'v1'], {}, /docs\/nowhere/],
      ['an unknown option', ['--dir', 'docs/v1', '--version', 'v1', '--force'], {}, /force/],
      ['an option of push-changed', ['--dir', 'docs/v1', '--version', 'v1', '--since', 'HEAD'], {}, /--since is an option of push-changed/],
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
      const r = await run(process.execPath, [script, 'pull', '--dir', 'docs/v1', '--version', 'v1'], { cwd: repo, env: { HELP_URL: s.url, HELP_KEY: s.key } });
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

  test('HELP_URL without the API\'s path is named as the mistake', async () => {
    const r = await push(['--dir', 'docs/v1', '--version', 'v1', '--dry-run'], { HELP_URL: s.url.replace(/\/help\/v1$/, '') });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /refused \(404 not_found\): .*\(HELP_URL must be the API's base, ending in \/help\/v1, such as https:\/\/help\.example\.com\/help\/v1; it is http:\/\/127\.0\.0\.1:\d+\)/);
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

    test('run from a content repository with npm --prefix, the paths are the caller\'s', async () => {
      const r = await run('npm', ['--prefix', PROJECT, 'run', '--silent', 'cli', '--', 'push', '--dir', 'docs/v2', '--version', 'v2', '--dry-run'], {
        cwd: repo,
        env: { HELP_URL: s.url, HELP_KEY: s.key },
      });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /^v2: 2 created, 0 updated, 0 deleted, 0 unchanged \(dry run/m);
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

  test('serves the push script built from the sources, to anyone, as JavaScript that needs only Node.js', async () => {
    const res = await fetch(`${s.url}/cli/help-push.mjs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /javascript/);
    const text = await res.text();
    assert.ok(text.startsWith('#!/usr/bin/env node\n'), text.slice(0, 100));
    // One file: every module it loads is one of Node's own.
    // Block comments load nothing: markdown-it's (bundled for the link check) show `import MarkdownIt from 'markdown-it'` as usage.
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '');
    // A `from "…"` counts at the start of an import or export statement, not inside a message's text.
    const loaded = [...code.matchAll(/(?:^|[;\n])\s*(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']|\b(?:__)?require\(\s*["']([^"']+)["']\s*\)|\bimport\(\s*["']([^"']+)["']/g)].map((m) => m[1] ?? m[2] ?? m[3]);
    assert.ok(loaded.length > 0);
    assert.deepEqual(loaded.filter((name) => !name.startsWith('node:') && !builtinModules.includes(name)), [], 'only Node.js modules');
    // The validation code inside is the service's; gray-matter's evaluating engine is left out.
    assert.match(text, /src\/content\/incoming\.ts/);
    assert.doesNotMatch(text, /\beval\s*\(|\bnew\s+Function\s*\(/);
    const again = await fetch(`${s.url}/cli/help-push.mjs`);
    assert.equal(await again.text(), text, 'built once, served the same');
  });

  test('run from a folder of its own, it prints its usage', async () => {
    const script = await fetchPushScript(s.url);
    try {
      const r = await run(process.execPath, [script, '--help'], { cwd: dirname(script), env: {} });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /help-push push --dir DIR --version VERSION/);
      assert.match(r.stdout, /help-push push-changed --since COMMIT/);
    } finally {
      rmSync(dirname(script), { recursive: true, force: true });
    }
  });

  test('a built file is served as it is; without one, and without esbuild to build one, 503 script_unavailable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'help-script-source-'));
    try {
      // A build module that needs esbuild, in a folder where there is none (as in a production install).
      writeFiles(dir, { 'help-push.mjs': '// built\n', 'bundles.mjs': "import { build } from 'esbuild';\nexport const buildPushScript = () => build({});\n" });
      const built = pushScriptLoader({ built: join(dir, 'help-push.mjs'), fromSource: false, bundles: join(dir, 'bundles.mjs') });
      assert.equal(await built(), '// built\n');
      const none = pushScriptLoader({ built: join(dir, 'missing.mjs'), fromSource: false, bundles: join(dir, 'bundles.mjs') });
      await assert.rejects(none(), (err: AppError) => err.code === 'script_unavailable' && err.status === 503 && /npm run build/.test(err.message));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
