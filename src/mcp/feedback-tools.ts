import type { Deps } from '../deps.ts';
import { readerOf, requireScope } from '../http/actor.ts';
import { versionByRef } from '../queries/versions.ts';
import { attentionOf } from '../routes/attention.ts';
import { admitFeedback, submitFeedback, type FeedbackInput } from '../routes/feedback.ts';
import { followedOutput } from './schemas.ts';
import type { ToolSpec } from './tool.ts';
import { followSlug, withFollowed } from './topic-links.ts';

/**
 * What readers tell us, for agents: feedback on a page (kept as from an agent, under the same limit
 * per address as the portal's form), and what needs a writer's attention in a version.
 */
export function feedbackTools(deps: Deps): ToolSpec[] {
  const { catalog } = deps;
  return [
    {
      name: 'submit_feedback',
      title: 'Say whether a page helped',
      description: 'Records whether a page answered the question it was read for (helpful true or false), with an optional comment of up to 1,000 characters on what was missing or wrong. Kept as from an agent; the writers read it with the page\'s other feedback. An old slug is taken as the renamed node\'s, with redirect.',
      write: false,
      hints: { readOnly: false },
      params: { version: 'VersionRef', slug: 'NodeSlug' },
      body: 'FeedbackSubmit',
      output: followedOutput('FeedbackEntry'),
      run: async ({ actor, args, body, address }) => {
        admitFeedback(deps, address);
        const reader = readerOf(actor);
        const { version, slug, redirect } = followSlug(catalog, reader, args.version, args.slug);
        return withFollowed(await submitFeedback(deps, reader, { ...body, version, slug } as FeedbackInput, 'agent', 'arguments'), redirect);
      },
    },
    {
      name: 'get_attention',
      title: 'What needs attention',
      description: 'What needs a writer\'s attention in a version, each item with where to act: broken links (file and line), pages readers found unhelpful, searches that found nothing, outdated and missing translations.',
      write: false,
      params: { version: 'VersionRef' },
      query: 'AttentionQuery',
      output: 'Attention',
      run: ({ actor, args }) => {
        // Asked before the version is looked up: without the scope, a draft's name tells nothing.
        const reader = readerOf(requireScope(actor, 'help:read'));
        return attentionOf(deps, actor, versionByRef(catalog, reader, args.version).slug, { lang: args.lang }, 'arguments/language');
      },
    },
  ];
}
