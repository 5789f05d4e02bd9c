/**
 * The help site every example of openapi.json is taken from: Tasklane, a task-management app, with
 * its help in English and German. `v1` is the old published version; `v2`, the latest, has two
 * sections and four topics. The ids are the ones the nodes really carry (an import keeps them), so
 * the same node has the same id in every example; stamps tell the order things happened in.
 */

export interface StoryTranslation {
  title: string;
  summary: string;
  bodyMd: string;
  updatedAt: string;
}

export interface StoryNode {
  id: string;
  slug: string;
  kind: 'section' | 'topic';
  parentSlug: string | null;
  icon: string | null;
  /** The client's own sort key among siblings (10, 20, 30 leaves room to insert between them). */
  sortOrder: number;
  translations: Record<string, StoryTranslation>;
}

export interface StoryVersion {
  slug: string;
  label: string;
  status: 'draft' | 'published' | 'archived';
  languages: string[];
  sortOrder: number | null;
  isLatest: boolean;
  hidden: boolean;
  workingCopyOf: string | null;
  createdAt: string;
  updatedAt: string;
}

/** When things happened, oldest first. */
export const STAMPS = {
  v1Created: '2026-03-02T09:00:00.000Z',
  v1Written: '2026-03-02T09:04:11.204Z',
  v2Created: '2026-10-05T08:30:00.000Z',
  v2Written: '2026-10-05T08:41:27.518Z',
  v2Published: '2026-10-12T14:00:03.991Z',
  v2German: '2026-10-14T10:22:45.107Z',
  /** The writes the examples show, after all of the above. */
  now: '2026-11-18T09:15:30.482Z',
  /** A stamp older than the last change: what a stale `expectedUpdatedAt` looks like. */
  stale: '2026-10-01T12:00:00.000Z',
} as const;

/** Where the service answers (HELP_PUBLIC_URL), as the URLs it hands out show. */
export const PUBLIC_URL = 'https://help.example.com';

/** The API keys of the examples: the documentation team's key, a read-only key, and one that was revoked. */
export const KEYS = {
  writer: { name: 'docs-team', prefix: 'hcs_Xq7kP2', createdAt: '2026-02-27T16:40:12.331Z' },
  reader: { name: 'support-portal', prefix: 'hcs_m4Rt9W', createdAt: '2026-02-27T16:42:50.018Z' },
  revoked: 'hcs_b8Jd0sVf3LqZ1nT6yHc2WkMe5RgA9uPx',
} as const;

export const V1: StoryVersion = {
  slug: 'v1',
  label: 'Tasklane 1.x',
  status: 'published',
  languages: ['en', 'de'],
  sortOrder: 10,
  isLatest: false,
  hidden: false,
  workingCopyOf: null,
  createdAt: STAMPS.v1Created,
  updatedAt: STAMPS.v1Written,
};

export const V2: StoryVersion = {
  slug: 'v2',
  label: 'Tasklane 2.0',
  status: 'published',
  languages: ['en', 'de'],
  sortOrder: 20,
  isLatest: true,
  hidden: false,
  workingCopyOf: null,
  createdAt: STAMPS.v2Created,
  updatedAt: STAMPS.v2Published,
};

const en = (title: string, summary: string, bodyMd: string, updatedAt: string = STAMPS.v2Written): StoryTranslation => ({ title, summary, bodyMd, updatedAt });
const de = (title: string, summary: string, bodyMd: string, updatedAt: string = STAMPS.v2German): StoryTranslation => ({ title, summary, bodyMd, updatedAt });

export const V1_NODES: StoryNode[] = [
  {
    id: '3f9c2a71-5d4e-4b8a-9e17-0c6d2b5a8f14',
    slug: 'welcome',
    kind: 'topic',
    parentSlug: null,
    icon: 'hand-wave',
    sortOrder: 10,
    translations: {
      en: { title: 'Welcome to Tasklane', summary: 'What Tasklane is and where to start in this help center.', bodyMd: 'Tasklane is a task-management web app for teams.\n', updatedAt: STAMPS.v1Written },
      de: { title: 'Willkommen bei Tasklane', summary: 'Was Tasklane ist und wo du in dieser Hilfe am besten anfängst.', bodyMd: 'Tasklane ist eine Web-App für die Aufgabenverwaltung im Team.\n', updatedAt: STAMPS.v1Written },
    },
  },
];

/** v2 in document order. keyboard-shortcuts has no German translation yet (German readers get English). */
export const V2_NODES: StoryNode[] = [
  {
    id: '8a1e5c3b-2f70-4d69-b5a4-71c0e9d2f306',
    slug: 'getting-started',
    kind: 'section',
    parentSlug: null,
    icon: 'rocket',
    sortOrder: 10,
    translations: {
      en: en('Getting started', 'Set up your account, create your first project and bring your team on board.', 'New to Tasklane? These guides take you from signing up to a working project in about fifteen minutes.\n'),
      de: de('Erste Schritte', 'Konto einrichten, erstes Projekt anlegen und das Team dazuholen.', 'Neu bei Tasklane? Diese Anleitungen führen dich in etwa fünfzehn Minuten von der Registrierung zu einem fertigen Projekt.\n'),
    },
  },
  {
    id: 'c47d0b92-6e1a-4f3c-8d25-9b6a3e0f1c78',
    slug: 'create-account',
    kind: 'topic',
    parentSlug: 'getting-started',
    icon: null,
    sortOrder: 10,
    translations: {
      en: en('Create your account', 'Sign up for Tasklane and set up your first workspace.', '## Sign up\n\n1. Open the sign-up page.\n2. Enter your work email address.\n3. Click **Confirm email** in the message we send you.\n'),
      de: de('Konto erstellen', 'Registriere dich bei Tasklane und richte deinen ersten Workspace ein.', '## Registrieren\n\n1. Öffne die Registrierungsseite.\n2. Gib deine geschäftliche E-Mail-Adresse ein.\n3. Klicke in der Nachricht, die wir dir schicken, auf **E-Mail bestätigen**.\n'),
    },
  },
  {
    id: '1b6f8e04-93ad-4c57-a2e8-5d0c7f4b9a61',
    slug: 'first-project',
    kind: 'topic',
    parentSlug: 'getting-started',
    icon: null,
    sortOrder: 20,
    translations: {
      en: en('Set up your first project', 'Create a project from a template and shape the board to fit your workflow.', '## Create a project\n\n1. In the sidebar, click **+** next to **Projects**.\n2. Pick a template or start with a blank project.\n3. Click **Create project**.\n'),
      de: de('Das erste Projekt einrichten', 'Lege ein Projekt aus einer Vorlage an und passe das Board an deinen Arbeitsablauf an.', '## Projekt anlegen\n\n1. Klicke in der Seitenleiste neben **Projekte** auf **+**.\n2. Wähle eine Vorlage oder beginne mit einem leeren Projekt.\n3. Klicke auf **Projekt anlegen**.\n'),
    },
  },
  {
    id: 'e2093f6d-7b4c-4a1e-9f58-3c8d1a6b0e27',
    slug: 'tasks-and-projects',
    kind: 'section',
    parentSlug: null,
    icon: 'list-checks',
    sortOrder: 20,
    translations: {
      en: en('Tasks and projects', 'Create tasks, arrange them in views and find them again.', 'Everything about day-to-day work in Tasklane.\n'),
      de: de('Aufgaben und Projekte', 'Aufgaben erstellen, in Ansichten anordnen und wiederfinden.', 'Alles rund um die tägliche Arbeit in Tasklane.\n'),
    },
  },
  {
    id: '5d8a0c1f-4e27-4b93-8c6e-a0f7b2d9e345',
    slug: 'create-tasks',
    kind: 'topic',
    parentSlug: 'tasks-and-projects',
    icon: null,
    sortOrder: 10,
    translations: {
      en: en('Create and organize tasks', 'Add tasks quickly, fill in the details, and move or complete them.', '## Create a task\n\nPress `C` anywhere inside a project, type a title and press Enter.\n'),
      de: de('Aufgaben erstellen und organisieren', 'Lege Aufgaben schnell an, ergänze Details und verschiebe oder erledige sie.', '## Aufgabe erstellen\n\nDrücke irgendwo in einem Projekt `C`, gib einen Titel ein und drücke die Eingabetaste.\n'),
    },
  },
  {
    id: '9c3e7a25-0d6b-4f81-b4c9-2e5f8a1d7b90',
    slug: 'keyboard-shortcuts',
    kind: 'topic',
    parentSlug: null,
    icon: 'keyboard',
    sortOrder: 30,
    translations: {
      en: en('Keyboard shortcuts', 'Move around Tasklane and edit tasks without touching the mouse.', '## Show all shortcuts\n\nPress `?` anywhere in Tasklane to open the shortcut overview.\n'),
    },
  },
];

/**
 * Publishing through pull requests: the content repository on GitHub, and the pull request that
 * publishes v2's working copy (its branch is named after the moment it was opened).
 */
export const PUBLISHING = {
  repository: 'acme/help-content',
  /** The secret of the repository's webhook (HELP_GITHUB_WEBHOOK_SECRET), for the signatures of deliveries. */
  webhookSecret: 'tasklane-webhook-secret',
  requestId: '6e2f1c84-93b7-4d0a-8c55-1f7a0b3e9d26',
  prNumber: 42,
  prUrl: 'https://github.com/acme/help-content/pull/42',
  branch: `publish/v2/${STAMPS.now.replace(/[-:]/g, '').replace('.', '')}`,
  openedAt: STAMPS.now,
  mergedAt: '2026-11-18T11:02:09Z',
} as const;
