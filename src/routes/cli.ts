import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../config.ts';
import { endpoint } from '../http/api.ts';

const PUSH_SCRIPT = join(PROJECT_ROOT, 'bin', 'help-push.mjs');

/** The push script, served so a content repository's CI fetches the one that matches this service. */
export const cliRoutes = () => [
  endpoint({
    method: 'get',
    path: '/cli/help-push.mjs',
    operationId: 'getPushScript',
    summary: 'The content push script (Node.js 20, no dependencies) used by content repository automation',
    tag: 'Publishing through pull requests',
    access: 'public',
    responses: { 200: { description: 'The script (text/javascript)' } },
    handle: ({ ctx }) => {
      ctx.type = 'text/javascript';
      return { body: readFileSync(PUSH_SCRIPT, 'utf8') };
    },
  }),
];
