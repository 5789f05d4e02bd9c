import type { Octokit } from '@octokit/rest';
import type { PublishingConfig } from '../config.ts';
import { onFirstUse } from '../first-use.ts';

export interface PullRequestRef {
  number: number;
  url: string;
}

export interface PullRequestState {
  state: 'open' | 'closed';
  merged: boolean;
  mergedAt: string | null;
  closedAt: string | null;
}

/** The part of GitHub the service uses: a branch with a commit of content files, and its pull request. */
export interface RepositoryHost {
  /** Commits `files` (paths in the repository) on a new branch from the base branch, replacing the folder `folder`, and opens a pull request. */
  openPullRequest(opts: { branch: string; folder: string; files: Array<{ path: string; content: string }>; title: string; body: string; message: string }): Promise<PullRequestRef>;
  closePullRequest(number: number, branch: string): Promise<void>;
  pullRequestState(number: number): Promise<PullRequestState>;
  /** The pull request opened from `branch`, if any (to reconcile after a crash). */
  findPullRequest(branch: string): Promise<PullRequestRef | null>;
}

/** GitHub (or GitHub Enterprise) through octokit, at the configured API URL. */
export class GitHubHost implements RepositoryHost {
  /** octokit and its thousand endpoint methods load with the first call: a service that never publishes does without. */
  private readonly octokit: () => Promise<Octokit>;
  private readonly owner: string;
  private readonly repo: string;

  constructor(private readonly config: PublishingConfig) {
    // Every call gives up after 20 s: a hung host must not hold a request (or the list refresh) forever.
    const fetchWithTimeout = (input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, signal: AbortSignal.timeout(20_000) });
    // Failures are reported by the publisher with their request; octokit's own console lines are not wanted.
    const quiet = () => undefined;
    this.octokit = onFirstUse('GitHub client', async () => {
      const { Octokit } = await import('@octokit/rest');
      return new Octokit({
        auth: config.token,
        baseUrl: config.apiUrl,
        userAgent: 'help-content-service',
        request: { fetch: fetchWithTimeout },
        log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
      });
    });
    this.owner = config.owner;
    this.repo = config.repo;
  }

  async openPullRequest(opts: { branch: string; folder: string; files: Array<{ path: string; content: string }>; title: string; body: string; message: string }): Promise<PullRequestRef> {
    const { owner, repo } = this;
    const octokit = await this.octokit();
    const git = octokit.rest.git;
    const base = await git.getRef({ owner, repo, ref: `heads/${this.config.baseBranch}` });
    const baseCommit = await git.getCommit({ owner, repo, commit_sha: base.data.object.sha });
    const existing = await git.getTree({ owner, repo, tree_sha: baseCommit.data.tree.sha, recursive: 'true' });
    const wanted = new Set(opts.files.map((f) => f.path));
    // Files of the folder that the new content no longer has are deleted in the same commit.
    const removed = existing.data.tree
      .filter((e) => e.type === 'blob' && e.path !== undefined && e.path.startsWith(`${opts.folder}/`) && !wanted.has(e.path))
      .map((e) => ({ path: e.path!, mode: '100644' as const, type: 'blob' as const, sha: null }));
    const tree = await git.createTree({
      owner,
      repo,
      base_tree: baseCommit.data.tree.sha,
      tree: [...opts.files.map((f) => ({ path: f.path, mode: '100644' as const, type: 'blob' as const, content: f.content })), ...removed],
    });
    const commit = await git.createCommit({ owner, repo, message: opts.message, tree: tree.data.sha, parents: [base.data.object.sha] });
    await git.createRef({ owner, repo, ref: `refs/heads/${opts.branch}`, sha: commit.data.sha });
    try {
      const pr = await octokit.rest.pulls.create({ owner, repo, title: opts.title, body: opts.body, head: opts.branch, base: this.config.baseBranch });
      return { number: pr.data.number, url: pr.data.html_url };
    } catch (err) {
      // The request is recorded as failed: its branch, pushed for nothing, goes too (best effort; the failure is what is reported).
      await git.deleteRef({ owner, repo, ref: `heads/${opts.branch}` }).catch(() => undefined);
      throw err;
    }
  }

  async closePullRequest(number: number, branch: string): Promise<void> {
    const { owner, repo } = this;
    const octokit = await this.octokit();
    await octokit.rest.pulls.update({ owner, repo, pull_number: number, state: 'closed' });
    try {
      await octokit.rest.git.deleteRef({ owner, repo, ref: `heads/${branch}` });
    } catch (err) {
      // A branch already deleted (by hand or by GitHub's auto-delete) is what we wanted.
      if ((err as { status?: number }).status !== 422 && (err as { status?: number }).status !== 404) throw err;
    }
  }

  async pullRequestState(number: number): Promise<PullRequestState> {
    const { data } = await (await this.octokit()).rest.pulls.get({ owner: this.owner, repo: this.repo, pull_number: number });
    return { state: data.state as 'open' | 'closed', merged: data.merged === true || data.merged_at !== null, mergedAt: data.merged_at, closedAt: data.closed_at };
  }

  async findPullRequest(branch: string): Promise<PullRequestRef | null> {
    const { data } = await (await this.octokit()).rest.pulls.list({ owner: this.owner, repo: this.repo, head: `${this.owner}:${branch}`, state: 'all', per_page: 1 });
    return data[0] ? { number: data[0].number, url: data[0].html_url } : null;
  }
}
