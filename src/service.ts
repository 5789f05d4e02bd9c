import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { createServer, type Server, type ServerOptions } from 'node:http';
import { pino, type Logger } from 'pino';
import { KeyFile } from './auth/key-file.ts';
import { KeyRing } from './auth/key-ring.ts';
import { AccountBook } from './auth/accounts.ts';
import { OAuthFront } from './oauth/front.ts';
import { createApp } from './app.ts';
import { ClientAddresses } from './http/client-address.ts';
import { answerClientErrors } from './http/client-errors.ts';
import { capConnectionsPerAddress } from './http/connections.ts';
import { Metrics } from './metrics.ts';
import { Clock, randomId, type NewId } from './clock.ts';
import type { Config } from './config.ts';
import { readFileSet } from './content/file-set.ts';
import { ProblemList } from './content/problems.ts';
import { readDirFiles } from './content/read-dir.ts';
import { isVersionSlug } from './domain/names.ts';
import type { VersionState } from './domain/types.ts';
import { findFonts, fontsFor, type FontCatalog } from './pdf/fonts.ts';
import { Catalog } from './store/catalog.ts';
import { IndexWorkers } from './index/index-workers.ts';
import { SearchIndex } from './index/search.ts';
import { sizeSearchCaches } from './index/search-caches.ts';
import { primeIndexing } from './index/prime.ts';
import { acquireLock } from './storage/lock-file.ts';
import { formatProblem, loadCatalog } from './store/load.ts';
import { BrokenRepositoryError, Repository } from './storage/repository.ts';
import { SnapshotKeeper } from './store/snapshot-keeper.ts';
import { Writer } from './store/writer.ts';
import { GitHubHost, type RepositoryHost } from './publishing/github.ts';
import { Publisher } from './publishing/publisher.ts';
import { RequestStore } from './publishing/requests.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { PrimaryKeys } from './http/primary-keys.ts';
import { cloneIfNew, startReplication } from './replica/start.ts';
import { HistoryIndex } from './store/history-index.ts';
import { RevisionReader } from './store/revision-reader.ts';
import { FeedbackStore } from './feedback/feedback-store.ts';
import { SearchReport } from './feedback/search-report.ts';
import { RateLimit } from './oauth/rate-limit.ts';

export interface RunningService {
  server: Server;
  /** Base URL of the API, e.g. http://127.0.0.1:8080/help/v1 */
  url: string;
  /** Every version is loaded (or known broken): reads, writes and the list of versions are answered. */
  ready: Promise<void>;
  /** Also every search index is built (after a start without snapshots, some are built after ready). */
  searchable: Promise<void>;
  /** Stops taking requests, lets in-flight writes finish, releases the data directory. */
  close(): Promise<void>;
}

/** How long after ready the indexing code is primed (see primeIndexing). */
const PRIME_AFTER_READY_MS = 500;

/** The author of commits the service makes on its own (sample content). */
const SERVICE_AUTHOR = { name: 'help-content-service', canWritePublished: true };

/**
 * Starts the service: takes the data directory's lock, opens the repository, starts listening
 * (answering 503 `starting` until the index is built), loads every version, and imports the
 * sample content when the repository holds no version yet.
 */
export interface ServiceOptions {
  /** The repository host for publish requests (default: GitHub through octokit, when publishing is on). */
  host?: RepositoryHost;
  /** How long writes must be quiet before changed versions are snapshotted (default 5 s). */
  snapshotQuietMs?: number;
  /** How long a stop waits for search indexes still being built, to keep them in the snapshots (default 10 s). */
  snapshotIndexWaitMs?: number;
  /** Where stamps and dates come from (default: the system clock). */
  clock?: Clock;
  /** Where new node and request ids come from (default: random UUIDs). */
  newId?: NewId;
  /** The module the index workers run (default: the service's own; tests give one that fails). */
  indexWorker?: URL;
  /** The PDF fonts (default: found in HELP_FONT_DIR, vendor/fonts/ and the installed font packages; tests leave the packages out). */
  fonts?: FontCatalog;
}

export async function startService(config: Config, log: Logger = pino({ level: config.logLevel }), options: ServiceOptions = {}): Promise<RunningService> {
  makeFolder(config.dataDir);
  const releaseLock = acquireLock(config.dataDir);
  try {
    const catalog = new Catalog();
    // The caches are the process's, over every index: the last service started sizes them.
    sizeSearchCaches(config.searchCacheBytes);
    const indexWorkers = config.indexWorkers > 0 ? new IndexWorkers(config.indexWorkers, config.indexWorkersMinChars, log, options.indexWorker) : null;
    const search = new SearchIndex((slug) => catalog.touch(slug), indexWorkers);
    catalog.subscribe({ prepare: (slug, state, pause) => search.prepare(slug, state, pause), set: (slug, state, prepared) => search.update(slug, state, prepared) });
    const metrics = new Metrics(catalog);
    const snapshots = new SnapshotKeeper(join(config.dataDir, 'snapshots'), catalog, search, log, { quietMs: options.snapshotQuietMs, closeIndexWaitMs: options.snapshotIndexWaitMs, timing: metrics.timing });
    snapshots.preload();
    // A replica's first start clones its primary's repository (before opening it, as if it had always been here).
    await cloneIfNew(config.replica, join(config.dataDir, 'content.git'), log);
    const repo = await Repository.open(join(config.dataDir, 'content.git'), { gcEvery: config.gcEvery, repackShare: config.repackShare, timing: metrics.timing });
    const snapshotted = snapshots.slugs();
    if (repo.headCommit === null && snapshotted.length > 0) {
      // Snapshots of versions that the repository does not have: content.git was replaced or emptied.
      throw new BrokenRepositoryError(
        `${repo.gitdir} has no commit, yet snapshots/ holds versions ${snapshotted.join(', ')}: the content repository is missing or was replaced. Restore content.git from a backup (docs/operations.md); to start anew on purpose, delete ${snapshots.dir} first.`,
      );
    }
    const clock = options.clock ?? new Clock();
    const newId = options.newId ?? randomId;
    const writer = new Writer(repo, catalog, clock, config.publishing !== null, metrics.timing, newId);
    // A replica's keys are its primary's, each checked there (http/primary-keys.ts).
    const keys = config.replica ? new PrimaryKeys(new KeyFile(config.dataDir), config.replica, log) : new KeyRing(new KeyFile(config.dataDir), log);
    const replication = startReplication({ replica: config.replica, catalog, repo, writer, log, settings: JSON.stringify([config.portal, config.publicUrl, config.basePath, config.mcpPath, config.cacheMaxAge]) });
    const repositoryHost = config.publishing ? (options.host ?? new GitHubHost(config.publishing)) : null;
    const requests = new RequestStore(config.dataDir);
    const publisher = new Publisher(config.publishing, catalog, writer, requests, repositoryHost, log, clock, newId, config.portal.path);
    const webhooks = new WebhookDispatcher(config.dataDir, config.webhooks, log);
    const history = new HistoryIndex(config.dataDir, repo, log);
    const revisions = new RevisionReader(repo, catalog);
    requests.watch((before, after) => webhooks.requestsChanged(before, after));
    const warn = (message: string, data: Record<string, unknown>) => log.warn(data, message);
    const feedback = new FeedbackStore(config.dataDir, config.feedback.maxBytes, new RateLimit(config.feedback.perAddressPerHour, 3_600_000), () => clock.time(), warn);
    const searchReport = new SearchReport(config.dataDir, config.feedback.searchReport, config.feedback.reportQueries, () => clock.time(), warn);
    searchReport.start();
    searchReport.follow(catalog);
    let isReady = false;
    // Nothing is known to exist until the load has listed the repository's versions.
    catalog.setLoading([]);
    // Found once, before listening: files of a required family missing (a broken install) stop the start here.
    const fonts = options.fonts ?? findFonts(config.fontDir);
    const addresses = new ClientAddresses(config.trustedProxies);
    // Listen first: the authorization server's issuer is the service's origin, port included.
    const server = createServer(serverOptions(config));
    server.on('clientError', answerClientErrors(log));
    capConnectionsPerAddress(server, config.connectionsPerAddress, (address) => addresses.isTrustedPeer(address), log);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    if (config.publicUrl === null && !isLoopback(config.host)) {
      log.warn({ host: config.host }, 'HELP_PUBLIC_URL is not set and the service listens beyond this machine: the portal\'s links, the sitemap, robots.txt and the PDF bundle\'s font URLs are built from each request\'s Host header; set HELP_PUBLIC_URL to the public origin, above all behind a CDN or any shared cache');
    }
    const origin = config.publicUrl ?? localOrigin(config.host, port);
    const accounts = new AccountBook(config.dataDir, log);
    const oauth = new OAuthFront(origin, config, accounts, log);
    const stopping = new AbortController();
    const app = createApp({ config, clock, catalog, search, writer, repo, keys, accounts, publisher, metrics, fonts, webhooks, feedback, searchReport, history, revisions, replication, stopping: stopping.signal }, oauth, log, () => isReady);
    server.on('request', app.callback());
    keys.start();
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}${config.basePath}`;

    const ready = (async () => {
      const started = Date.now();
      await loadCatalog(repo, catalog, clock, log, { search, snapshots });
      snapshots.follow(repo);
      // Before the sample's commit: every commit from here on is recorded as it is made (what the file lacks is read from git log in the background).
      history.open();
      history.follow(writer);
      // A replica's commits come from its primary, not its writer: its history reads them from git log.
      replication.replica?.follower.onSwap((commit) => void history.adopt(commit));
      replication.begin();
      // A replica holds what its primary has, and nothing of its own.
      if (catalog.all().length === 0 && config.sampleContentDir !== null && config.replica === null) await importSample(config.sampleContentDir, writer, log);
      // From here on every commit's changes become webhook events (the load and the sample are no news).
      webhooks.follow(writer);
      webhooks.start();
      isReady = true;
      // Not on the way to ready: a start that read no version from git (those prime while git starts)
      // indexed nothing, and the first requests are answered before it (see primeIndexing; it only
      // helps the optimizer, so a write that comes first is indexed alike).
      setTimeout(primeIndexing, PRIME_AFTER_READY_MS).unref();
      // Requests recorded just before a crash are matched to their pull requests (in the background: GitHub may be slow).
      publisher.reconcile().catch((err) => log.warn({ err }, 'reconciling publish requests failed'));
      // Imports committed before a stop that came before requests.json was updated.
      await publisher.reconcileImports((since) => repo.messagesSince(since)).catch((err) => log.warn({ err }, 'reconciling imported publish requests failed'));
      log.info({ url, versions: catalog.all().length, ms: Date.now() - started }, 'ready');
      // Said once at start, where an operator looks: a production install has no CJK fonts unless HELP_FONT_DIR gives them.
      const languages = [...new Set(catalog.all().flatMap((v) => v.state?.meta.languages ?? []))];
      const { uncovered } = fontsFor(languages, fonts);
      if (uncovered.length > 0) {
        log.warn({ languages: uncovered, missingFonts: fonts.missing, fontDir: config.fontDir }, 'no PDF font for some languages of the content: their text in PDFs may show as empty boxes, and the portal says so; to add the CJK fonts, see docs/portal.md#fonts (HELP_FONT_DIR)');
      }
      // Versions served before their search indexes were built (a start without snapshots): when the last one is.
      if (search.indexing().length > 0) void search.indexed().then(() => log.info({ ms: Date.now() - started }, 'every version searchable'));
    })();

    const searchable = ready.then(() => search.indexed());
    let closing: Promise<void> | null = null;
    const close = () =>
      (closing ??= (async () => {
        // Requests in flight are finished, but a clone can run for minutes: its git process is ended.
        stopping.abort();
        await replication.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await ready.catch(() => undefined);
        await writer.drain();
        await webhooks.close();
        await history.ready.catch(() => undefined);
        history.close();
        await feedback.settled();
        await searchReport.close();
        await snapshots.close();
        search.stop();
        indexWorkers?.close();
        keys.stop();
        await oauth.close();
        releaseLock();
      })());
    ready.catch(async (err) => {
      log.fatal({ err }, 'could not load content');
      await close();
    });
    searchable.catch(() => undefined); // a failed load is ready's to report
    return { server, url, ready, searchable, close };
  } catch (err) {
    releaseLock();
    throw err;
  }
}

/**
 * Node.js's limits on one request: the whole of it within HELP_REQUEST_TIMEOUT (Node's own five
 * minutes let a body trickled a byte at a time hold a socket that long), its headers within 30 s
 * (or that timeout, when shorter), and an idle connection kept 5 s for a next request. Timeouts are
 * checked every second: Node's 30 s between checks would stretch a timeout of a minute by half.
 */
function serverOptions(config: Config): ServerOptions {
  const requestTimeout = config.requestTimeoutSeconds * 1000;
  return {
    requestTimeout,
    headersTimeout: Math.min(requestTimeout, 30_000),
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: 1_000,
    // The application refuses a request without Host itself, in JSON like its other refusals (http/host.ts).
    requireHostHeader: false,
  };
}

/** Whether the service can be reached from this machine only. */
const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\./.test(host) || host === '::ffff:127.0.0.1';

/** The origin the service is reached at when HELP_PUBLIC_URL is not set: the address it listens on. */
function localOrigin(host: string, port: number): string {
  // A wildcard address is not one a browser can be sent to.
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** Imports each folder of `dir` that holds a version.json as a version, all in one commit. */
async function importSample(dir: string, writer: Writer, log: Logger): Promise<void> {
  if (!fs.existsSync(dir)) {
    log.warn({ dir }, 'no sample content to import');
    return;
  }
  const folders = fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory() && fs.existsSync(join(dir, d.name, 'version.json')));
  const slugs = folders.map((d) => d.name);
  primeIndexing();
  await writer.writeVersions(slugs, SERVICE_AUTHOR, (ctx) => {
    const states: VersionState[] = [];
    for (const slug of slugs) {
      if (!isVersionSlug(slug)) throw new Error(`Sample content folder "${slug}" is not a valid version slug`);
      const problems = new ProblemList();
      const state = readFileSet(readDirFiles(join(dir, slug)), { slug, fallbackStamp: ctx.now, idFor: () => ctx.newId() }, problems);
      if (state === null) throw new Error(`Sample content ${slug} is invalid: ${problems.errors.map(formatProblem).join('; ')}`);
      states.push(state);
    }
    return {
      changes: states.map((state) => ({ slug: state.slug, after: state })),
      message: `Import sample content: ${slugs.join(', ')}`,
      result: undefined,
    };
  });
  log.info({ versions: slugs }, 'imported sample content');
}

/**
 * mkdir -p, a level at a time from the nearest folder that exists: Node's recursive mkdir loops
 * forever on a path below /proc, where mkdir fails with ENOENT however often it is tried.
 */
function makeFolder(path: string): void {
  const missing: string[] = [];
  for (let p = resolve(path); !fs.existsSync(p); p = dirname(p)) {
    missing.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of missing) {
    try {
      fs.mkdirSync(p);
    } catch (err) {
      // Made meanwhile by another process: what was wanted.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !fs.statSync(p).isDirectory()) throw err;
    }
  }
}
