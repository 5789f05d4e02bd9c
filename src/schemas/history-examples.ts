import type { OperationExamples } from './examples.ts';
import { KEYS, STAMPS } from './story.ts';

/** The examples of the history operations (merged into EXAMPLES; see examples.ts for the rules). */

/** The commit that imported v2's nodes; a real run's id stands in for it. */
export const IMPORT_REVISION = 'a3f9c2d41b7e8f6051c2d9e8b7a6f5e4d3c2b1a0';
const UNKNOWN_REVISION = '0000000';
const REQUEST_ID = '7d2c9e41-5a8b-4f30-b6e2-00000000002a';
const error = (code: string, message: string, details: Record<string, unknown> = {}) => ({ error: { code, message, ...details, requestId: REQUEST_ID } });

const NODE = { version: 'v2', slug: 'keyboard-shortcuts' };
const NODE_ID = '9c3e7a25-0d6b-4f81-b4c9-2e5f8a1d7b90';
/** The commits of the story that the answers list (their ids are this run's: only their form is compared). */
const IMPORT = { revision: IMPORT_REVISION, author: KEYS.writer.name, at: STAMPS.now.replace(/\.\d{3}Z$/, '.000Z'), message: 'Import 6 node(s) into v2 (replace): 6 created, 0 updated, 0 deleted' };
const PUBLISH = { ...IMPORT, revision: 'e1d2c3b4a5f60718293a4b5c6d7e8f9011223344', message: 'Update version v2: status "published", isLatest true' };
const FILE = ['---', 'title: Keyboard shortcuts', 'summary: Move around Tasklane and edit tasks without touching the mouse.', '---', '## Show all shortcuts', '', 'Press `?` anywhere in Tasklane to open the shortcut overview.'];
const unknownRevision = error('unknown_revision', `No commit "${UNKNOWN_REVISION}" in the content history: give a full commit id, or at least 7 of its first characters (as history lists them)`, { revision: UNKNOWN_REVISION });
const noNode = error('not_found', 'No node "install" in version "v2", now or in its history', { resource: 'node', version: 'v2', slug: 'install' });

export const HISTORY_EXAMPLES: Record<string, OperationExamples> = {
  getNodeHistory: {
    parameters: NODE,
    responses: {
      200: { imported: { summary: 'Made by the import of v2, in English', sent: { query: { language: 'en' } },
          value: {
            version: 'v2',
            id: NODE_ID,
            slug: 'keyboard-shortcuts',
            language: 'en',
            history: [
              { ...IMPORT, change: 'created', slug: 'keyboard-shortcuts', language: 'en' },
              { ...IMPORT, change: 'created', slug: 'keyboard-shortcuts', language: null },
            ],
            next: null,
          },
        },
      },
      404: { unknownNode: { summary: 'A node that never existed', sent: { path: { slug: 'install' } }, value: noNode } },
    },
  },
  getVersionHistory: {
    parameters: { version: 'v2' },
    responses: {
      200: { page: { summary: 'The two newest commits, and where the next page starts', sent: { query: { limit: '2' } },
          value: { version: 'v2', history: [{ ...PUBLISH, change: 'updated' }, { ...IMPORT, change: 'updated' }], next: 'WyJ2MiIsMV0' },
        },
      },
      404: { unknownVersion: { summary: 'An unknown version', sent: { path: { version: 'v9' } }, value: error('not_found', 'No version "v9"', { resource: 'version', version: 'v9' }) } },
    },
  },
  getHistoryDiff: {
    parameters: { ...NODE, revision: IMPORT_REVISION },
    responses: {
      200: { created: { summary: 'The revision that made the English file', sent: { query: { language: 'en' } },
          value: {
            version: 'v2',
            id: NODE_ID,
            slug: 'keyboard-shortcuts',
            language: 'en',
            revision: IMPORT_REVISION,
            previousRevision: null,
            oldPath: null,
            newPath: 'v2/en/keyboard-shortcuts.md',
            unified: `--- /dev/null\n+++ b/v2/en/keyboard-shortcuts.md\n@@ -0,0 +1,7 @@\n${FILE.map((l) => `+${l}\n`).join('')}`,
            hunks: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 7, lines: FILE.map((text) => ({ type: 'added', text })) }],
          },
        },
      },
      404: { unknownRevision: { summary: 'A revision the history does not have', sent: { path: { revision: UNKNOWN_REVISION } }, value: unknownRevision } },
    },
  },
  restoreNode: {
    parameters: NODE,
    requests: {
      english: { summary: 'The English text as the import wrote it', value: { revision: IMPORT_REVISION, language: 'en' } },
      unknown: { summary: 'A revision the history does not have', value: { revision: UNKNOWN_REVISION } },
    },
    responses: {
      200: {
        restored: {
          summary: 'The English text written back, as one new commit',
          value: { version: 'v2', id: NODE_ID, slug: 'keyboard-shortcuts', restoredFrom: IMPORT_REVISION, recreated: false, languages: ['en'], revision: 'c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7' },
        },
      },
      404: { unknownRevision: { summary: 'A revision the history does not have', sent: { body: 'unknown' }, value: unknownRevision } },
    },
  },
};
