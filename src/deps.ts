import type { AccountBook } from './auth/accounts.ts';
import type { KeyRing } from './auth/key-ring.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Metrics } from './metrics.ts';
import type { FontCatalog } from './pdf/fonts.ts';
import type { Catalog } from './store/catalog.ts';
import type { SearchIndex } from './index/search.ts';
import type { Publisher } from './publishing/publisher.ts';
import type { Repository } from './storage/repository.ts';
import type { Writer } from './store/writer.ts';
import type { WebhookDispatcher } from './webhooks/dispatcher.ts';
import type { HistoryIndex } from './store/history-index.ts';
import type { RevisionReader } from './store/revision-reader.ts';
import type { Replication } from './replica/replication.ts';
import type { FeedbackStore } from './feedback/feedback-store.ts';
import type { SearchReport } from './feedback/search-report.ts';

/** What the interfaces (the API's routes) are built with: the services made at start-up (service.ts). */
export interface Deps {
  config: Config;
  clock: Clock;
  catalog: Catalog;
  search: SearchIndex;
  writer: Writer;
  repo: Repository;
  keys: KeyRing;
  accounts: AccountBook;
  publisher: Publisher;
  metrics: Metrics;
  /** The PDF fonts found at start (HELP_FONT_DIR, vendor/fonts/, the installed font packages). */
  fonts: FontCatalog;
  /** Webhook subscriptions and their deliveries. */
  webhooks: WebhookDispatcher;
  /** Reader feedback on pages (data directory, bounded). */
  feedback: FeedbackStore;
  /** Searches counted by query, for the search report. */
  searchReport: SearchReport;
  /** Per node and version, the commits that changed it (history.jsonl). */
  history: HistoryIndex;
  /** Versions as they were at past commits, read from git. */
  revisions: RevisionReader;
  /** Aborted when the service starts to stop: work that would hold the stop (a git clone) ends. */
  stopping: AbortSignal;
  /** The revision served, content validators, and, on a replica, the primary it follows (docs/replicas.md). */
  replication: Replication;
}
