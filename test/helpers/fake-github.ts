import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call the fake received, for tests to assert on. */
export interface Call {
  method: string;
  path: string;
  body: any;
}

interface Commit {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
}

interface Pull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: 'open' | 'closed';
  merged: boolean;
  merged_at: string | null;
  closed_at: string | null;
}

/**
 * A local HTTP server that answers the GitHub REST endpoints the service uses (git refs, commits,
 * trees, pulls), with GitHub's shapes, status codes and error bodies. Repository content is kept as
 * a flat map of path → content per tree. Tests point the real octokit client at it.
 */
export class FakeGitHub {
  readonly calls: Call[] = [];
  private server!: Server;
  url = '';
  private readonly trees = new Map<string, Map<string, string>>();
  private readonly commits = new Map<string, Commit>();
  private readonly refs = new Map<string, string>();
  private readonly pulls: Pull[] = [];
  private failures: Array<{ method: string; path: RegExp; status: number; message: string }> = [];
  private delays: Array<{ method: string; path: RegExp; ms: number }> = [];
  /** The number the next pull request gets (GitHub numbers them per repository). */
  nextPullNumber = 1;

  constructor(
    readonly owner = 'acme',
    readonly repo = 'help-content',
    readonly token = 'ghp_test_token',
    readonly baseBranch = 'main',
  ) {
    const tree = this.putTree(new Map([['README.md', '# Help content\n']]));
    const commit = this.putCommit(tree, [], 'Initial commit');
    this.refs.set(baseBranch, commit);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Makes the next matching call wait `ms` before it is answered (a host slow to answer). */
  delayNext(method: string, path: RegExp, ms: number): void {
    this.delays.push({ method, path, ms });
  }

  /** Makes the next matching call fail with a GitHub error. */
  failNext(method: string, path: RegExp, status = 422, message = 'Validation Failed'): void {
    this.failures.push({ method, path, status, message });
  }

  pull(number: number): Pull | undefined {
    return this.pulls.find((p) => p.number === number);
  }

  /** The files on a branch, path → content. */
  files(branch: string): Map<string, string> {
    const sha = this.refs.get(branch);
    if (!sha) throw new Error(`no branch ${branch}`);
    return new Map(this.trees.get(this.commits.get(sha)!.tree)!);
  }

  hasBranch(branch: string): boolean {
    return this.refs.has(branch);
  }

  /** Merges a pull request as GitHub's merge button does (the head's tree becomes the base's). */
  merge(number: number): Pull {
    const p = this.pull(number)!;
    const head = this.commits.get(this.refs.get(p.head)!)!;
    this.refs.set(p.base, this.putCommit(head.tree, [this.refs.get(p.base)!, head.sha], `Merge pull request #${number}`));
    Object.assign(p, { state: 'closed', merged: true, merged_at: new Date().toISOString(), closed_at: new Date().toISOString() });
    return p;
  }

  /** GitHub's `pull_request` webhook delivery for a pull request, signed with `secret`. */
  webhookDelivery(number: number, secret: string): { body: string; headers: Record<string, string> } {
    const p = this.pull(number)!;
    const body = JSON.stringify({
      action: p.state === 'closed' ? 'closed' : 'opened',
      number,
      pull_request: { number, state: p.state, merged: p.merged, merged_at: p.merged_at, closed_at: p.closed_at, title: p.title, head: { ref: p.head }, base: { ref: p.base } },
      repository: { full_name: `${this.owner}/${this.repo}` },
    });
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    return { body, headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomBytes(8).toString('hex'), 'x-hub-signature-256': signature } };
  }

  private putTree(files: Map<string, string>): string {
    const sha = createHash('sha1').update(JSON.stringify([...files].sort())).digest('hex');
    this.trees.set(sha, files);
    return sha;
  }

  private putCommit(tree: string, parents: string[], message: string): string {
    const sha = createHash('sha1').update(`${tree}${parents.join()}${message}${randomBytes(4).toString('hex')}`).digest('hex');
    this.commits.set(sha, { sha, tree, parents, message });
    return sha;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url!, this.url);
    const body = text ? JSON.parse(text) : undefined;
    const method = req.method!;
    this.calls.push({ method, path: url.pathname + url.search, body });
    const send = (status: number, data?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(data === undefined ? '' : JSON.stringify(data));
    };
    const error = (status: number, message: string) => send(status, { message, documentation_url: 'https://docs.github.com/rest' });
    if (req.headers.authorization !== `token ${this.token}` && req.headers.authorization !== `Bearer ${this.token}`) return error(401, 'Bad credentials');
    const delay = this.delays.findIndex((d) => d.method === method && d.path.test(url.pathname));
    if (delay >= 0) {
      const [d] = this.delays.splice(delay, 1);
      await new Promise((resolve) => setTimeout(resolve, d.ms));
    }
    const failure = this.failures.findIndex((f) => f.method === method && f.path.test(url.pathname));
    if (failure >= 0) {
      const [f] = this.failures.splice(failure, 1);
      return error(f.status, f.message);
    }
    const prefix = `/repos/${this.owner}/${this.repo}`;
    if (!url.pathname.startsWith(`${prefix}/`)) return error(404, 'Not Found');
    const path = decodeURIComponent(url.pathname.slice(prefix.length));
    let m: RegExpExecArray | null;

    if (method === 'GET' && (m = /^\/git\/ref\/heads\/(.+)$/.exec(path))) {
      const sha = this.refs.get(decodeURIComponent(m[1]));
      return sha ? send(200, { ref: `refs/heads/${m[1]}`, object: { sha, type: 'commit' } }) : error(404, 'Not Found');
    }
    if (method === 'GET' && (m = /^\/git\/commits\/([0-9a-f]{40})$/.exec(path))) {
      const c = this.commits.get(m[1]);
      return c ? send(200, { sha: c.sha, tree: { sha: c.tree }, parents: c.parents.map((sha) => ({ sha })), message: c.message }) : error(404, 'Not Found');
    }
    if (method === 'GET' && (m = /^\/git\/trees\/([0-9a-f]{40})$/.exec(path))) {
      const files = this.trees.get(m[1]);
      if (!files) return error(404, 'Not Found');
      const tree = [...files].map(([p, content]) => ({ path: p, mode: '100644', type: 'blob', sha: createHash('sha1').update(content).digest('hex'), size: Buffer.byteLength(content) }));
      return send(200, { sha: m[1], tree, truncated: false });
    }
    if (method === 'POST' && path === '/git/trees') {
      const base = body.base_tree ? this.trees.get(body.base_tree) : new Map<string, string>();
      if (!base) return error(422, 'Invalid tree info');
      const files = new Map(base);
      for (const e of body.tree as Array<{ path: string; sha?: string | null; content?: string }>) {
        if (e.sha === null) {
          if (!files.has(e.path)) return error(422, `GitRPC::BadObjectState: ${e.path} does not exist`);
          files.delete(e.path);
        } else files.set(e.path, e.content ?? '');
      }
      return send(201, { sha: this.putTree(files), tree: [] });
    }
    if (method === 'POST' && path === '/git/commits') {
      if (!this.trees.has(body.tree)) return error(422, 'Tree SHA does not exist');
      return send(201, { sha: this.putCommit(body.tree, body.parents ?? [], body.message) });
    }
    if (method === 'POST' && path === '/git/refs') {
      const name = String(body.ref).replace(/^refs\/heads\//, '');
      if (this.refs.has(name)) return error(422, 'Reference already exists');
      if (!this.commits.has(body.sha)) return error(422, 'Object does not exist');
      this.refs.set(name, body.sha);
      return send(201, { ref: body.ref, object: { sha: body.sha, type: 'commit' } });
    }
    if (method === 'DELETE' && (m = /^\/git\/refs\/heads\/(.+)$/.exec(path))) {
      const name = decodeURIComponent(m[1]);
      if (!this.refs.delete(name)) return error(422, 'Reference does not exist');
      return send(204);
    }
    if (method === 'POST' && path === '/pulls') {
      if (!this.refs.has(body.head)) return error(422, 'Validation Failed');
      if (this.pulls.some((p) => p.head === body.head && p.state === 'open')) return error(422, 'A pull request already exists');
      const p: Pull = { number: this.nextPullNumber++, title: body.title, body: body.body ?? '', head: body.head, base: body.base, state: 'open', merged: false, merged_at: null, closed_at: null };
      this.pulls.push(p);
      return send(201, this.present(p));
    }
    if (method === 'GET' && path === '/pulls') {
      const head = url.searchParams.get('head')?.split(':')[1];
      return send(200, this.pulls.filter((p) => !head || p.head === head).map((p) => this.present(p)));
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(path))) {
      const p = this.pull(Number(m[1]));
      if (!p) return error(404, 'Not Found');
      if (method === 'GET') return send(200, this.present(p));
      if (method === 'PATCH') {
        if (body.state === 'closed' && p.state === 'open') Object.assign(p, { state: 'closed', closed_at: new Date().toISOString() });
        return send(200, this.present(p));
      }
    }
    return error(404, 'Not Found');
  }

  private present(p: Pull) {
    return {
      number: p.number,
      title: p.title,
      body: p.body,
      state: p.state,
      merged: p.merged,
      merged_at: p.merged_at,
      closed_at: p.closed_at,
      html_url: `https://github.example/${this.owner}/${this.repo}/pull/${p.number}`,
      head: { ref: p.head },
      base: { ref: p.base },
    };
  }
}
