import type { Context } from 'koa';
import { restoreNode, type RestoreInput } from '../commands/restore.ts';
import type { Deps } from '../deps.ts';
import { readerOf } from '../http/actor.ts';
import { endpoint } from '../http/api.ts';
import { language } from '../http/languages.ts';
import { readPrecondition } from '../http/preconditions.ts';
import { diffAt } from '../queries/history-diff.ts';
import { nodeHistory, versionHistory } from '../queries/history.ts';
import type { PageParams } from '../schemas/common.ts';

const TAG = 'History';

/** A page's answer, with the next page also named in a `Link` header (as the list of versions does). */
function paged<T extends { next: string | null }>(ctx: Context, body: T) {
  if (body.next === null) return { body };
  const params = new URLSearchParams(ctx.querystring);
  params.set('cursor', body.next);
  return { body, headers: { Link: `<${ctx.path}?${params}>; rel="next"` } };
}

/** The history of nodes and versions from git: who changed what and when, diffs, and restores. */
export function historyRoutes({ catalog, history, revisions, writer, repo }: Deps) {
  const sources = { catalog, history, revisions };
  return [
    endpoint<unknown, PageParams & { language?: string }>({
      method: 'get',
      path: '/versions/:version/nodes/:slug/history',
      operationId: 'getNodeHistory',
      summary: 'The commits that changed a node and its translations, newest first',
      description:
        'Each entry names the commit (`revision`), its `author` (the key or account), `at`, `message` and what it did: `created`, `updated`, `moved`, `renamed` (with `from`) or `deleted`, for the node itself (`language` null) or one translation. History follows the node through renames (by its id); a deleted node is found by the slug it last had. Read from an index kept as commits are made, never by walking the log.',
      tag: TAG,
      access: 'credential',
      query: 'NodeHistoryQuery',
      errors: ['not_found', 'history_building'],
      responses: { 200: { description: 'One page of the node\'s history', schema: 'NodeHistory' } },
      handle: async ({ ctx, actor, params, query }) => {
        const lang = query.language === undefined ? undefined : language(query.language, 'query/language');
        await sources.history.settle();
        return paged(ctx, nodeHistory(sources, readerOf(actor), params.version, params.slug, { ...query, language: lang }));
      },
    }),
    endpoint<unknown, PageParams>({
      method: 'get',
      path: '/versions/:version/history',
      operationId: 'getVersionHistory',
      summary: 'Every commit that changed a version, newest first',
      description: 'Writes, imports, reorders, merged publish requests and changes to the version itself, each with its revision, author, time and message.',
      tag: TAG,
      access: 'credential',
      query: 'HistoryPageQuery',
      errors: ['not_found', 'history_building'],
      responses: { 200: { description: 'One page of the version\'s history', schema: 'VersionHistory' } },
      handle: async ({ ctx, actor, params, query }) => {
        await sources.history.settle();
        return paged(ctx, versionHistory(sources, readerOf(actor), params.version, query));
      },
    }),
    endpoint<unknown, { language?: string }>({
      method: 'get',
      path: '/versions/:version/nodes/:slug/history/:revision/diff',
      operationId: 'getHistoryDiff',
      summary: 'What a revision changed in a node\'s Markdown file: a line diff against the revision before',
      description: 'The file `{lang}/{slug}.md` at the revision against the same translation at the previous revision that changed it (an empty file when the revision created it), as unified diff text and as hunks of typed lines.',
      tag: TAG,
      access: 'credential',
      params: { revision: 'Revision' },
      query: 'DiffQuery',
      errors: ['not_found', 'unknown_revision', 'not_in_revision', 'history_building'],
      responses: { 200: { description: 'The diff', schema: 'HistoryDiff' } },
      handle: async ({ actor, params, query }) => {
        const lang = query.language === undefined ? undefined : language(query.language, 'query/language');
        await sources.history.settle();
        return { body: await diffAt({ ...sources, repo }, readerOf(actor), params.version, params.slug, params.revision, lang) };
      },
    }),
    endpoint<RestoreInput & { expectedUpdatedAt?: string }>({
      method: 'post',
      path: '/versions/:version/nodes/:slug/restore',
      operationId: 'restoreNode',
      summary: 'Write a node\'s text as it was at a revision back, as one new commit',
      description:
        'One translation (`language`) or every translation the node had then is written back, in one commit "Restore … to <short id>". A node deleted since is made again with its id, translations and place (its parent must still exist: 409 `restore_parent_missing`). Text already as it was then writes nothing (`revision` null). Published versions are locked as for any write.',
      tag: TAG,
      access: 'write',
      body: 'RestoreRequest',
      headers: ['If-Unmodified-Since'],
      errors: ['not_found', 'unknown_revision', 'not_in_revision', 'restore_parent_missing', 'conflict', 'stale_write', 'published_read_only', 'history_building'],
      responses: { 200: { description: 'What was restored, and the new commit', schema: 'RestoreResult' } },
      handle: async ({ ctx, actor, params, body: { expectedUpdatedAt, ...input } }) => {
        const pre = readPrecondition(ctx, expectedUpdatedAt);
        if (input.language !== undefined) input.language = language(input.language, 'body/language');
        await sources.history.settle();
        return { body: await restoreNode({ ...sources, writer }, actor!, readerOf(actor), params.version, params.slug, input, pre) };
      },
    }),
  ];
}
