import { importFiles } from '../commands/import.ts';
import type { Deps } from '../deps.ts';
import { readerOf } from '../http/actor.ts';
import { versionByRef } from '../queries/versions.ts';
import { cancelRequest, listRequests, openWorkingCopy, requestPublication } from '../routes/publishing.ts';
import { check } from '../schemas/registry.ts';
import type { JsonSchema } from './schemas.ts';
import type { ToolSpec } from './tool.ts';

const TARGET: JsonSchema = { $ref: 'VersionRef', description: 'Only the requests for this target version (a slug, or "latest").' };

/**
 * Content files, working copies and publish requests: the commands and the route's own functions,
 * so the lock, the checks and the error codes are the REST API's.
 */
export function publishingTools({ writer, publisher, catalog, config }: Deps): ToolSpec[] {
  return [
    {
      name: 'import_files',
      title: 'Import content files',
      description:
        "Replaces a version's content with content files (version.json and {language}/{slug}.md, as in a content repository) and publishes it, creating it if needed. " +
        'A dry run unless dryRun is false: answers the summary of changes and the warnings; invalid_content lists every problem with its path and line.',
      write: true,
      hints: { destructive: true, idempotent: true },
      params: { version: 'VersionRef' },
      body: 'ImportFilesRequest',
      output: 'ImportFilesResult',
      run: ({ actor, args, body }) => importFiles({ writer, publisher, portalPath: config.portal.path }, actor!, args.version, body.files, body.dryRun !== false),
    },
    {
      name: 'create_working_copy',
      title: 'Open a working copy',
      description: 'Opens (or returns, existed true) the hidden working copy "{version}-wip" of a published version: edit it, then create_publish_request for it. Needs publishing through pull requests.',
      write: true,
      hints: { idempotent: true },
      params: { version: 'VersionRef' },
      output: 'WorkingCopyResult',
      run: async ({ actor, args }) => (await openWorkingCopy(publisher, actor!, args.version)).body,
    },
    {
      name: 'create_publish_request',
      title: 'Request publication',
      description:
        'Opens a pull request on the content repository that publishes a draft or a working copy, after checking its content; one open request per target. dryRun true answers the summary, warnings and files without it.',
      write: true,
      hints: { openWorld: true },
      params: { version: 'VersionRef' },
      query: 'DryRunQuery',
      output: { type: 'object', oneOf: [{ $ref: 'PublishDryRun' }, { $ref: 'PublishRequestEnvelope' }] },
      run: async ({ actor, args }) => (await requestPublication(publisher, actor!, args.version, args.dryRun === 'true')).body,
    },
    {
      name: 'list_publish_requests',
      title: 'List publish requests',
      description: 'The publish requests, newest first, each with its status and pull request (open ones refreshed from the repository host). Use it to follow a request or find one to cancel.',
      write: true,
      hints: { readOnly: true, openWorld: true },
      input: {
        properties: { target: TARGET },
        read: ({ target }) => (target === undefined ? {} : { target: target === 'latest' ? target : check('VersionSlug', target, 'arguments/target') }),
      },
      output: 'PublishRequestList',
      run: ({ actor, args }) => listRequests(publisher, args.target === 'latest' ? versionByRef(catalog, readerOf(actor), 'latest').slug : args.target),
    },
    {
      name: 'cancel_publish_request',
      title: 'Cancel a publish request',
      description: 'Cancels an open publish request: closes its pull request and deletes its branch. Answers the request, now closed.',
      write: true,
      hints: { destructive: true, openWorld: true },
      params: { id: 'RequestId' },
      output: 'PublishRequestEnvelope',
      run: ({ args }) => cancelRequest(publisher, args.id),
    },
  ];
}
