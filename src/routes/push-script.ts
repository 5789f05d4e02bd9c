import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../config.ts';
import { AppError } from '../errors.ts';
import { endpoint } from '../http/api.ts';

export interface ScriptSource {
  /** The built script (scripts/build.mjs writes dist/help-push.mjs next to the built server). */
  built: string;
  /** Running from the TypeScript sources (tsx): a dist/ file may be older than the sources, so they are built. */
  fromSource: boolean;
  /** The module that builds the script in memory (scripts/bundles.mjs; it needs esbuild, a development dependency). */
  bundles: string;
}

const DEFAULT_SOURCE: ScriptSource = {
  built: join(PROJECT_ROOT, 'dist', 'help-push.mjs'),
  fromSource: import.meta.url.endsWith('.ts'),
  bundles: join(PROJECT_ROOT, 'scripts', 'bundles.mjs'),
};

/**
 * How the service gets the push script's text: the built file, or, running from the sources (or
 * without a built file), a build in memory made once per process and kept. Without either, 503
 * `script_unavailable`.
 */
export function pushScriptLoader(source: ScriptSource): () => Promise<string> {
  let building: Promise<string> | null = null;
  const buildInMemory = () => {
    building ??= (async () => {
      let bundles: { buildPushScript: () => Promise<string> };
      try {
        bundles = await import(pathToFileURL(source.bundles).href);
      } catch (err) {
        throw new AppError('script_unavailable', 'The push script is not built (dist/help-push.mjs is missing) and cannot be built here (no esbuild); run npm run build', {}, { cause: err });
      }
      return bundles.buildPushScript();
    })();
    // A failed build is not kept: the next request tries again.
    building.catch(() => (building = null));
    return building;
  };
  return async () => {
    if (!source.fromSource) {
      try {
        return readFileSync(source.built, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return buildInMemory();
  };
}

/** One per process: every service started in it shares the build. */
const defaultLoader = pushScriptLoader(DEFAULT_SOURCE);

/** The push script, served so a content repository's CI fetches the one that matches this service. */
export const pushScriptRoutes = (pushScript = defaultLoader) => [
  endpoint({
    method: 'get',
    path: '/cli/help-push.mjs',
    operationId: 'getPushScript',
    summary: 'The content push script (one file, Node.js 20, no dependencies) used by content repository automation',
    description:
      '`node help-push.mjs --help` lists its commands: `push` (one version folder) and `push-changed` (every version folder changed since a commit), each as a real run, a `--dry-run` on the service, or an `--offline` check with the same validation code the service runs.',
    tag: 'Publishing through pull requests',
    access: 'public',
    errors: ['script_unavailable'],
    responses: { 200: { description: 'The script (text/javascript)' } },
    handle: async ({ ctx }) => {
      const body = await pushScript();
      ctx.type = 'text/javascript';
      return { body };
    },
  }),
];
