import type { Deps } from '../deps.ts';
import { readerOf, requireScope } from '../http/actor.ts';
import { language } from '../http/languages.ts';
import { nodeHistory } from '../queries/history.ts';
import { followedOutput } from './schemas.ts';
import type { ToolSpec } from './tool.ts';
import { followSlug, withFollowed } from './topic-links.ts';

/** A node's history for agents: the same query as the API's `GET …/nodes/{slug}/history`. */
export function historyTools(deps: Deps): ToolSpec[] {
  const { catalog, history, revisions } = deps;
  return [
    {
      name: 'get_history',
      title: 'History of a node',
      description: 'Who changed a topic or section and its translations, when and how (created, updated, moved, renamed from, deleted), newest first, following renames (an old slug reads the renamed node, with redirect); each entry\'s revision can be read with the API\'s ?revision= or compared with its diff. Pass next as cursor for older entries.',
      write: false,
      params: { version: 'VersionRef', slug: 'NodeSlug' },
      query: 'NodeHistoryQuery',
      output: followedOutput('NodeHistory'),
      run: async ({ actor, args }) => {
        await history.settle();
        // Asked before the version is looked up: without the scope, a draft's name tells nothing.
        const reader = readerOf(requireScope(actor, 'help:read'));
        const { version, slug, redirect } = followSlug(catalog, reader, args.version, args.slug);
        const lang = args.language === undefined ? undefined : language(args.language, 'arguments/language');
        return withFollowed(nodeHistory({ catalog, history, revisions }, reader, version, slug, { ...args, language: lang }), redirect);
      },
    },
  ];
}
