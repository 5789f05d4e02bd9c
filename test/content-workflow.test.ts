import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import yaml from 'js-yaml';
import { md, versionJson, writeFiles } from './helpers/content.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { PROJECT, type Run } from './helpers/process.ts';
import { brokenVersion, fetchPushScript, goodVersion, lines, run, startLockedService, TOOLS_PATH } from './helpers/push-script.ts';
import type { TestServer } from './helpers/server.ts';

const WORKFLOW = join(PROJECT, 'examples', 'content-repo', '.github', 'workflows', 'help-content.yml');
const ZEROS = '0'.repeat(40);

/** A content repository: a real git repository in a temporary folder, committed to with the system git. */
class ContentRepo {
  readonly dir = mkdtempSync(join(tmpdir(), 'help-content-checkout-'));
  private readonly home = mkdtempSync(join(tmpdir(), 'help-git-home-'));

  constructor() {
    this.git('init', '-q', '-b', 'main');
  }

  git(...args: string[]): string {
    return execFileSync('git', args, {
      cwd: this.dir,
      encoding: 'utf8',
      env: { PATH: TOOLS_PATH, HOME: this.home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Editor', GIT_AUTHOR_EMAIL: 'editor@example.org', GIT_COMMITTER_NAME: 'Editor', GIT_COMMITTER_EMAIL: 'editor@example.org' },
    }).trim();
  }

  write(folder: string, files: Record<string, string>): void {
    writeFiles(join(this.dir, folder), files);
  }

  remove(path: string): void {
    rmSync(join(this.dir, path), { recursive: true, force: true });
  }

  /** Commits everything; answers the new commit. */
  commit(message: string): string {
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.head();
  }

  head(): string {
    return this.git('rev-parse', 'HEAD');
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** The versions the service lists to a writer, by slug. */
async function versionsOn(s: TestServer): Promise<string[]> {
  const res = await s.request('GET', '/versions');
  assert.equal(res.status, 200, res.text);
  return (res.body as Array<{ slug: string }>).map((v) => v.slug).sort();
}

/** stderr lines that name a file in docs/: the problems. */
const problemLines = (r: Run) => lines(r.stderr).filter((l) => /^docs\/[^ ]+: /.test(l));

describe('push-changed in a content repository (the script as the service serves it, a real git repository)', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  let script: string;
  let repo: ContentRepo;

  const pushChanged = (args: string[], env: Record<string, string | undefined> = {}, cwd = repo.dir) =>
    run(process.execPath, [script, 'push-changed', ...args], { cwd, env: { HELP_URL: s.url, HELP_KEY: publisher, ...env } });

  before(async () => {
    gh = await new FakeGitHub().start();
    ({ s, publisher } = await startLockedService(gh));
    script = await fetchPushScript(s.url);
    repo = new ContentRepo();
    repo.write('docs/v1', goodVersion('Version 1'));
    repo.write('docs/v2', goodVersion('Version 2'));
    repo.write('.', { 'README.md': '# Help content\n' });
    repo.commit('Base content');
  });
  after(async () => {
    await s.close();
    await gh.stop();
    repo.close();
    rmSync(dirname(script), { recursive: true, force: true });
  });

  describe('without a base commit to compare with, every version folder is checked, and the script says why', () => {
    test('the first push of a branch (before = all zeros) publishes every version', async () => {
      const commits = s.commitCount();
      const r = await pushChanged(['--root', 'docs', '--since', ZEROS]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(lines(r.stderr)[0], 'Checking every version under docs: the base commit is all zeros (the first push of a branch).');
      assert.deepEqual(lines(r.stdout), [
        'v1: 2 created, 0 updated, 0 deleted, 0 unchanged; now published',
        'v2: 2 created, 0 updated, 0 deleted, 0 unchanged; now published',
        'Done: 2 versions (v1, v2) published.',
      ]);
      assert.equal(s.commitCount(), commits + 2);
      for (const v of ['v1', 'v2']) assert.equal((await s.request('GET', `/versions/${v}/topics/a?language=de`, { key: null })).body.title, 'A auf Deutsch');
    });

    test('an empty --since (no base given) checks every version', async () => {
      const r = await pushChanged(['--since', '', '--dry-run']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(lines(r.stderr)[0], 'Checking every version under docs: no base commit was given.');
      assert.match(r.stdout, /^v1: 0 created, 0 updated, 0 deleted, 2 unchanged \(dry run/m);
      assert.match(r.stdout, /^v2: 0 created, 0 updated, 0 deleted, 2 unchanged \(dry run/m);
    });

    test('a base commit the repository does not have (history rewritten by a force push) checks every version', async () => {
      const r = await pushChanged(['--since', 'f'.repeat(40), '--dry-run']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(lines(r.stderr)[0], 'Checking every version under docs: the base commit ffffffffffff is not in this repository (history rewritten by a force push, or a shallow clone).');
      assert.match(r.stdout, /^Done: 2 versions \(v1, v2\) passed the dry run\.$/m);
    });
  });

  test('nothing changed under docs: exit 0, saying so', async () => {
    const base = repo.head();
    repo.write('.', { 'README.md': '# Help content, edited\n' });
    repo.write('docs', { 'README.md': 'What is in here.\n' });
    repo.commit('Edit the READMEs');
    const r = await pushChanged(['--since', base]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r.stderr), ['docs/README.md: not inside a version folder (docs/{version}/); not checked']);
    assert.deepEqual(lines(r.stdout), [`No version changed under docs since ${base.slice(0, 12)}: nothing to do.`]);
  });

  test('changes not committed under docs are named: the versions are picked by their commits, and sent as they are on disk', async () => {
    const base = repo.head();
    writeFileSync(join(repo.dir, 'docs/v2/en/a.md'), '---\ntitle: A, not committed\n---\nDraft.\n');
    try {
      const r = await pushChanged(['--since', base, '--offline']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(lines(r.stderr).some((l) => l.startsWith('warning: 1 change(s) under docs are not committed (docs/v2/en/a.md): push-changed picks the versions changed in commits since')), r.stderr);
      assert.deepEqual(lines(r.stdout), [`No version changed under docs since ${base.slice(0, 12)}: nothing to do.`]);
    } finally {
      repo.git('checkout', '--', 'docs/v2/en/a.md');
    }
  });

  describe('a change with two broken versions and a good one', () => {
    let base: string;
    before(() => {
      base = repo.head();
      repo.write('docs/bad1', brokenVersion());
      repo.write('docs/bad2', { 'version.json': versionJson({ languages: ['en'], nav: ['x'] }), 'en/x.md': '---\nsummary: no title\n---\nBody\n' });
      repo.write('docs/v1', { 'en/a.md': md('A', 'Changed in review.\n') });
      repo.commit('Rewrite v1/a, add two broken versions');
    });

    test('both broken versions are reported, the good one is still published, and the run exits 1', async () => {
      const commits = s.commitCount();
      const r = await pushChanged(['--since', base]);
      assert.equal(r.code, 1, r.stderr);
      const err = lines(r.stderr);
      assert.equal(err[0], 'Changed under docs since ' + base.slice(0, 12) + ': bad1, bad2, v1');
      assert.ok(err.some((l) => /^docs\/bad1\/en\/a\.md:3: .*YAML/.test(l)), r.stderr);
      assert.ok(err.some((l) => /^docs\/bad2\/en\/x\.md:1: frontmatter "title" is required/.test(l)), r.stderr);
      const refused1 = err.findIndex((l) => l.startsWith('bad1: refused (400 invalid_content)'));
      const refused2 = err.findIndex((l) => l.startsWith('bad2: refused (400 invalid_content)'));
      const v1 = err.indexOf('Publishing 4 files (0.0 MB) from docs/v1 as version v1…');
      assert.ok(refused1 > 0 && refused2 > refused1 && v1 > refused2, `each version in turn, on past the failures:\n${r.stderr}`);
      assert.equal(err.at(-1), 'Failed: bad1, bad2 (2 of 3 versions); v1 published.');
      assert.deepEqual(lines(r.stdout), ['v1: 0 created, 1 updated, 0 deleted, 1 unchanged; now published']);
      assert.equal(s.commitCount(), commits + 1, 'one import: v1');
      assert.equal((await s.request('GET', '/versions/v1/topics/a', { key: null })).body.bodyMd, 'Changed in review.\n');
      assert.deepEqual(await versionsOn(s), ['v1', 'v2']);
    });

    test('--offline finds the same problems as a dry run on the service, with no service and no HELP_URL or HELP_KEY', async () => {
      const online = await pushChanged(['--since', base, '--dry-run'], { GITHUB_ACTIONS: 'true' });
      const commits = s.commitCount();
      const r = await run(process.execPath, [script, 'push-changed', '--since', base, '--offline'], { cwd: repo.dir, env: { GITHUB_ACTIONS: 'true' } });
      assert.equal(online.code, 1, online.stderr);
      assert.equal(r.code, 1, r.stderr);
      assert.ok(problemLines(online).length >= 5, online.stderr);
      assert.deepEqual(problemLines(r), problemLines(online));
      const annotations = (x: Run) => lines(x.stdout).filter((l) => l.startsWith('::'));
      assert.deepEqual(annotations(r), annotations(online));
      assert.match(r.stderr, /^Checking 4 files \(0\.0 MB\) from docs\/v1 as version v1 \(offline\)…$/m);
      assert.match(r.stdout, /^v1: valid, 2 node\(s\) in en, de \(offline check: nothing sent\)$/m);
      assert.equal(lines(r.stderr).at(-1), 'Failed: bad1, bad2 (2 of 3 versions); v1 passed the offline check.');
      assert.equal(s.commitCount(), commits);
    });

    after(() => {
      repo.remove('docs/bad1');
      repo.remove('docs/bad2');
      repo.commit('Drop the broken versions');
    });
  });

  describe('when git fails, the run fails with what git said (never "nothing to do")', () => {
    test('a base that is not a commit of the repository', async () => {
      const r = await pushChanged(['--since', 'no-such-branch']);
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(lines(r.stderr), ['Cannot tell which versions changed: "no-such-branch" is not a commit of this repository (git rev-parse found nothing by that name)']);
      assert.equal(r.stdout, '');
    });

    test('git diff itself fails (an object of the base commit is missing)', async () => {
      const copy = mkdtempSync(join(tmpdir(), 'help-broken-checkout-'));
      try {
        cpSync(repo.dir, copy, { recursive: true });
        const base = repo.git('rev-parse', 'HEAD~1');
        const tree = repo.git('rev-parse', 'HEAD~1:docs');
        rmSync(join(copy, '.git', 'objects', tree.slice(0, 2), tree.slice(2)));
        const r = await pushChanged(['--since', base, '--dry-run'], {}, copy);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /^Cannot tell which versions changed: git diff --name-only .* failed \(exit 128\): .*(unable to read|bad tree|not a tree|missing)/m);
        assert.doesNotMatch(r.stdout, /nothing to do/);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    });

    test('not a git repository', async () => {
      const plain = mkdtempSync(join(tmpdir(), 'help-not-a-repo-'));
      try {
        writeFiles(join(plain, 'docs/v1'), goodVersion('Version 1'));
        const r = await pushChanged(['--since', ZEROS, '--offline'], {}, plain);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /^Cannot tell which versions changed: git rev-parse --is-inside-work-tree failed \(exit 128\): fatal: not a git repository/m);
      } finally {
        rmSync(plain, { recursive: true, force: true });
      }
    });

    test('no git on PATH', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'help-empty-path-'));
      try {
        const r = await pushChanged(['--since', ZEROS, '--offline'], { PATH: empty });
        assert.equal(r.code, 1, r.stderr);
        assert.deepEqual(lines(r.stderr), ['Cannot tell which versions changed: git is not installed (or not on PATH)']);
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });
  });

  describe('a deleted version folder', () => {
    let base: string;
    before(() => {
      base = repo.head();
      repo.remove('docs/v2');
      repo.commit('Drop v2');
    });

    test('by default the version stays on the service, with a warning that names the setting that deletes it', async () => {
      const commits = s.commitCount();
      const r = await pushChanged(['--since', base], { GITHUB_ACTIONS: 'true' });
      assert.equal(r.code, 0, r.stderr);
      const warning =
        'docs/v2 was deleted, but version v2 stays on the service; --delete-removed deletes it (the example workflow passes it when the Actions variable HELP_DELETE_REMOVED_VERSIONS is true)';
      assert.ok(lines(r.stderr).includes(`warning: ${warning}`), r.stderr);
      assert.deepEqual(lines(r.stdout), [`::warning::${warning}`, 'Done: v2 deleted here but kept on the service.']);
      assert.equal(s.commitCount(), commits);
      assert.equal((await s.request('GET', '/versions/v2/tree', { key: null })).status, 200);
    });

    test('--delete-removed with a dry run or offline deletes nothing and says what a real run would do', async () => {
      // The dry run asks the service, which has v2, published.
      const dry = await pushChanged(['--since', base, '--delete-removed', '--dry-run']);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /^v2: docs\/v2 was deleted; a real run deletes version v2 on the service, where it is published \(dry run: nothing deleted\)$/m);
      assert.match(dry.stdout, /^Done: v2 to be deleted on the service by a real run\.$/m);
      // Offline, nobody is asked.
      const offline = await pushChanged(['--since', base, '--delete-removed', '--offline']);
      assert.equal(offline.code, 0, offline.stderr);
      assert.match(offline.stdout, /^v2: docs\/v2 was deleted; a real run deletes version v2 on the service if it has it \(offline check: nothing deleted, the service not asked\)$/m);
      assert.deepEqual(await versionsOn(s), ['v1', 'v2']);
    });

    test('with --delete-removed a real run deletes the version on the service (with the publisher key)', async () => {
      const refused = await pushChanged(['--since', base, '--delete-removed'], { HELP_KEY: s.key });
      assert.equal(refused.code, 1, 'a key that may not write published versions');
      assert.match(refused.stderr, /^v2: not deleted: refused \(403 published_read_only\)/m);
      assert.deepEqual(await versionsOn(s), ['v1', 'v2']);

      const commits = s.commitCount();
      const r = await pushChanged(['--since', base, '--delete-removed']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(lines(r.stdout), ['v2: deleted on the service (docs/v2 was deleted)', 'Done: v2 deleted on the service.']);
      assert.equal(s.commitCount(), commits + 1);
      assert.deepEqual(await versionsOn(s), ['v1']);

      const again = await pushChanged(['--since', base, '--delete-removed']);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^v2: docs\/v2 was deleted and the service has no such version: nothing to delete$/m);
      // A dry run now says the same: the service has no v2, so a real run would delete nothing.
      const dry = await pushChanged(['--since', base, '--delete-removed', '--dry-run']);
      assert.equal(dry.code, 0, dry.stderr);
      assert.deepEqual(lines(dry.stdout), ['v2: docs/v2 was deleted and the service has no such version: a real run deletes nothing (dry run)', 'Done: v2 deleted here and not on the service: nothing to delete.']);
    });
  });

  test('a folder under the root without version.json is an error for that version', async () => {
    const base = repo.head();
    repo.write('docs/images', { 'logo.txt': 'not a version\n' });
    repo.commit('Add a folder that is not a version');
    const r = await pushChanged(['--since', base, '--offline']);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(lines(r.stderr).includes('docs/images/version.json: missing: each folder under docs is a version and needs its version.json'), r.stderr);
    assert.equal(lines(r.stderr).at(-1), 'Failed: images (1 of 1 versions).');
    repo.remove('docs/images');
    repo.commit('Remove it again');
  });

  test('usage errors exit 2: no --since, no HELP_KEY for a real run, an option of push', async () => {
    for (const [args, env, said] of [
      [[], {}, /Missing --since/],
      [['--since', ZEROS], { HELP_KEY: '' }, /Missing HELP_KEY/],
      [['--since', ZEROS, '--dir', 'docs/v1'], {}, /--dir is an option of push, not of push-changed/],
      [['--since', ZEROS, '--root', '../elsewhere'], {}, /--root \.\.\/elsewhere must be a folder below the current folder/],
      // A typo in --root found nothing changed and passed, checking nothing.
      [['--since', ZEROS, '--root', 'dcos'], {}, /--root dcos is not a folder here/],
    ] as const) {
      const r = await pushChanged([...args], { ...env });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, said);
    }
  });
});

// ---------------------------------------------------------------------------------------------

/** What GitHub's expressions in the workflow can read: the contexts of one run. */
interface Contexts {
  github: { event_name: 'push' | 'pull_request'; event: Record<string, any> };
  secrets: Record<string, string>;
  vars: Record<string, string>;
}

/**
 * Evaluates the `${{ … }}` expressions the workflow uses: context paths (`secrets.HELP_KEY`,
 * `github.event.before`), string literals and `||`. Anything else fails the test, so the workflow
 * cannot use an expression these tests do not understand.
 */
function evaluate(text: string, ctx: Contexts): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    for (const operand of expr.split('||').map((o) => o.trim())) {
      const literal = /^'([^']*)'$/.exec(operand);
      let value: unknown;
      if (literal) value = literal[1];
      else if (/^(github|secrets|vars)(\.[A-Za-z_][\w-]*)+$/.test(operand)) value = operand.split('.').reduce<any>((o, key) => o?.[key], ctx);
      else assert.fail(`an expression the tests do not evaluate: ${expr}`);
      if (value) return String(value);
    }
    return '';
  });
}

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}

describe('The content repository workflow (examples/content-repo/.github/workflows/help-content.yml), its steps run as GitHub runs them', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  let repo: ContentRepo;
  let runnerTemp: string;
  let workflow: any;
  const writerKey = () => s.key;

  /**
   * Runs a job's `run:` steps as the runner would for `ctx`: skipped when its `if:` does not hold; each
   * step with the workflow's, the job's and the step's env (expressions evaluated), with the shell
   * `shell: bash` gives (bash --noprofile --norc -eo pipefail), in the checkout; a failing step ends the job.
   */
  async function runJob(name: 'check' | 'publish', ctx: Contexts): Promise<Run | null> {
    const job = workflow.jobs[name];
    const condition = /^github\.event_name == '(\w+)'$/.exec(job.if);
    assert.ok(condition, `${name}: an if: the tests understand`);
    if (condition[1] !== ctx.github.event_name) return null;
    assert.equal(job.defaults?.run?.shell ?? workflow.defaults?.run?.shell, 'bash', 'run steps use shell: bash');
    const envOf = (env: Record<string, string> | undefined) => Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, evaluate(String(v), ctx)]));
    const out: Run = { code: 0, stdout: '', stderr: '' };
    for (const step of (job.steps as Step[]).filter((st) => typeof st.run === 'string')) {
      const r = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
        cwd: repo.dir,
        env: { ...envOf(workflow.env), ...envOf(job.env), ...envOf(step.env), RUNNER_TEMP: runnerTemp, GITHUB_ACTIONS: 'true', CI: 'true', GITHUB_EVENT_NAME: ctx.github.event_name },
      });
      out.stdout += r.stdout;
      out.stderr += r.stderr;
      out.code = r.code;
      if (r.code !== 0) break;
    }
    return out;
  }

  const push = (before: string, vars: Record<string, string> = {}): Contexts => ({
    github: { event_name: 'push', event: { before, after: repo.head() } },
    secrets: { HELP_KEY: writerKey(), HELP_PUBLISHER_KEY: publisher },
    vars: { HELP_URL: s.url, ...vars },
  });
  const pullRequest = (base: string, opts: { fork?: boolean } = {}): Contexts => ({
    github: { event_name: 'pull_request', event: { pull_request: { base: { sha: base }, head: { sha: repo.head() } } } },
    // A pull request from a fork gets no secrets and no variables.
    secrets: opts.fork ? {} : { HELP_KEY: writerKey(), HELP_PUBLISHER_KEY: publisher },
    vars: opts.fork ? {} : { HELP_URL: s.url },
  });

  before(async () => {
    const text = readFileSync(WORKFLOW, 'utf8');
    const fallback = /vars\.HELP_URL \|\| '([^']+)'/.exec(text)?.[1];
    assert.ok(fallback, 'HELP_URL falls back to an address written in the workflow');
    gh = await new FakeGitHub().start();
    ({ s, publisher } = await startLockedService(gh));
    // The address written in the workflow is the service's, as docs/publishing.md asks of whoever copies it.
    workflow = yaml.load(text.replaceAll(fallback, s.url));
    repo = new ContentRepo();
    runnerTemp = mkdtempSync(join(tmpdir(), 'help-runner-temp-'));
    repo.write('docs/v1', goodVersion('Version 1'));
    repo.write('docs/v2', goodVersion('Version 2'));
    repo.write('.', { 'README.md': '# Help content\n' });
    repo.commit('Base content');
  });
  after(async () => {
    await s.close();
    await gh.stop();
    repo.close();
    rmSync(runnerTemp, { recursive: true, force: true });
  });

  test('runs on pull requests and on pushes to main that touch docs/**, with the history it diffs against', () => {
    assert.deepEqual(workflow.on.pull_request.paths, ['docs/**']);
    assert.deepEqual(workflow.on.push.branches, ['main']);
    assert.deepEqual(workflow.on.push.paths, ['docs/**']);
    assert.deepEqual(workflow.permissions, { contents: 'read' });
    for (const job of ['check', 'publish']) {
      const checkout = (workflow.jobs[job].steps as Step[]).find((st) => st.uses?.startsWith('actions/checkout'));
      assert.equal(checkout?.with?.['fetch-depth'], 0, `${job} fetches the history it diffs against`);
    }
  });

  test('the first push to main (before = all zeros) publishes every version', async () => {
    const commits = s.commitCount();
    const r = await runJob('publish', push(ZEROS));
    assert.equal(r?.code, 0, `${r?.stdout}\n${r?.stderr}`);
    assert.match(r!.stderr, /^Checking every version under docs: the base commit is all zeros/m);
    assert.match(r!.stdout, /^Done: 2 versions \(v1, v2\) published\.$/m);
    assert.equal(s.commitCount(), commits + 2);
    assert.deepEqual(await versionsOn(s), ['v1', 'v2']);
    assert.equal(await runJob('check', push(ZEROS)), null, 'the check job does not run on pushes');
  });

  describe('a pull request that breaks two versions', () => {
    let base: string;
    before(() => {
      base = repo.head();
      repo.write('docs/v1', { 'en/b.md': '---\ntitle: B\nsummary: a: b\n---\nBody.\n' });
      repo.write('docs/v2', { 'en/a.md': md('A', 'Fine.\n'), 'en/extra.md': md('Extra') });
      repo.write('docs/v3', goodVersion('Version 3', { status: 'draft' }));
      repo.commit('Break v1 and v2, add a draft v3');
    });

    test('with the HELP_KEY secret: a dry run on the service; both reported, annotated, the check fails, nothing written', async () => {
      const commits = s.commitCount();
      const r = await runJob('check', pullRequest(base));
      assert.notEqual(r?.code, 0, `${r?.stdout}\n${r?.stderr}`);
      assert.match(r!.stderr, /^docs\/v1\/en\/b\.md:3: .*YAML/m);
      assert.match(r!.stderr, /^docs\/v2\/en\/extra\.md: no node "extra" in version\.json "nav": add \{ "slug": "extra" \} to "nav" \(line \d+ of version\.json\)/m);
      assert.match(r!.stdout, /^::error file=docs\/v1\/en\/b\.md,line=3::/m);
      assert.match(r!.stdout, /^::error file=docs\/v2\/en\/extra\.md::/m);
      assert.match(r!.stdout, /^::warning file=docs\/v3\/version\.json,line=3::"status" is "draft", but importing these files publishes the version/m);
      assert.match(r!.stdout, /^v3: 2 created, 0 updated, 0 deleted, 0 unchanged \(dry run: nothing written\)$/m);
      assert.match(r!.stderr, /^Failed: v1, v2 \(2 of 3 versions\); v3 passed the dry run\.$/m);
      assert.equal(s.commitCount(), commits);
    });

    test('from a fork (no secrets, no variables): the same problems, found offline, and the check fails', async () => {
      const online = (await runJob('check', pullRequest(base)))!;
      const commits = s.commitCount();
      const r = await runJob('check', pullRequest(base, { fork: true }));
      assert.notEqual(r?.code, 0, `${r?.stdout}\n${r?.stderr}`);
      assert.match(r!.stdout, /^No HELP_KEY \(a pull request from a fork gets no secrets\): checking the files offline\.$/m);
      assert.match(r!.stderr, /^Checking 4 files \(0\.0 MB\) from docs\/v1 as version v1 \(offline\)…$/m);
      assert.deepEqual(problemLines(r!), problemLines(online));
      assert.match(r!.stdout, /^::warning file=docs\/v3\/version\.json,line=3::"status" is "draft"/m);
      assert.match(r!.stderr, /^Failed: v1, v2 \(2 of 3 versions\); v3 passed the offline check\.$/m);
      assert.equal(s.commitCount(), commits);
    });

    test('merged as it is: the push publishes the good version, fails on the broken ones, and the job fails', async () => {
      const commits = s.commitCount();
      const r = await runJob('publish', push(base));
      assert.notEqual(r?.code, 0, `${r?.stdout}\n${r?.stderr}`);
      assert.match(r!.stdout, /^v3: 2 created, 0 updated, 0 deleted, 0 unchanged; now published$/m);
      assert.match(r!.stderr, /^Failed: v1, v2 \(2 of 3 versions\); v3 published\.$/m);
      assert.equal(s.commitCount(), commits + 1);
      assert.equal((await s.request('GET', '/versions/v1/topics/b', { key: null })).body.bodyMd, 'The second topic.\n', 'v1 as it was');
    });

    after(() => {
      repo.write('docs/v1', { 'en/b.md': md('B', 'Fixed.\n') });
      repo.remove('docs/v2/en/extra.md');
      repo.commit('Fix v1 and v2');
    });
  });

  test('a pull request of good content passes, offline from a fork too', async () => {
    const base = repo.head();
    repo.write('docs/v1', { 'en/a.md': md('A', 'Reviewed.\n') });
    repo.commit('Edit v1/a');
    for (const fork of [false, true]) {
      const r = await runJob('check', pullRequest(base, { fork }));
      assert.equal(r?.code, 0, `${r?.stdout}\n${r?.stderr}`);
      assert.match(r!.stdout, fork ? /^Done: v1 passed the offline check\.$/m : /^Done: v1 passed the dry run\.$/m);
    }
  });

  test('when git cannot resolve the base, the job fails (it never passes publishing nothing)', async () => {
    const commits = s.commitCount();
    const r = await runJob('publish', push('no-such-commit'));
    assert.notEqual(r?.code, 0, `${r?.stdout}\n${r?.stderr}`);
    assert.match(r!.stderr, /^Cannot tell which versions changed: "no-such-commit" is not a commit of this repository/m);
    assert.equal(s.commitCount(), commits);
  });

  describe('a merge that deletes a version folder', () => {
    let base: string;
    before(() => {
      base = repo.head();
      repo.remove('docs/v2');
      repo.commit('Drop v2');
    });

    test('without the variable HELP_DELETE_REMOVED_VERSIONS the version stays, with a warning annotation', async () => {
      const r = await runJob('publish', push(base));
      assert.equal(r?.code, 0, `${r?.stdout}\n${r?.stderr}`);
      assert.match(r!.stdout, /^::warning::docs\/v2 was deleted, but version v2 stays on the service; --delete-removed deletes it/m);
      assert.deepEqual(await versionsOn(s), ['v1', 'v2', 'v3']);
      const notTrue = await runJob('publish', push(base, { HELP_DELETE_REMOVED_VERSIONS: 'yes' }));
      assert.equal(notTrue?.code, 0);
      assert.deepEqual(await versionsOn(s), ['v1', 'v2', 'v3'], 'only "true" deletes');
    });

    test('with HELP_DELETE_REMOVED_VERSIONS = true the version is deleted on the service', async () => {
      const r = await runJob('publish', push(base, { HELP_DELETE_REMOVED_VERSIONS: 'true' }));
      assert.equal(r?.code, 0, `${r?.stdout}\n${r?.stderr}`);
      assert.match(r!.stdout, /^v2: deleted on the service \(docs\/v2 was deleted\)$/m);
      assert.deepEqual(await versionsOn(s), ['v1', 'v3']);
    });
  });

  test('no step uses command substitution around git, whose failure bash would ignore', () => {
    for (const job of ['check', 'publish']) {
      for (const step of workflow.jobs[job].steps as Step[]) assert.doesNotMatch(step.run ?? '', /\$\(\s*git\b|`git\b/, `${job}: ${step.name}`);
    }
  });
});
