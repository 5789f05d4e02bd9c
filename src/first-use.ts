import { AppError } from './errors.ts';

/** Seconds a client is told to wait before asking again for a part that failed to load. */
const RETRY_AFTER_S = 5;

/**
 * A part of the service that many deployments never use (the authorization server, the tool server,
 * the portal, the GitHub client), loaded by the first request that needs it rather than at start:
 * each holds megabytes of code and objects that an idle service would carry for nothing. Callers
 * that arrive while it loads wait for the same load; a failed load answers `component_unavailable`
 * and is tried again by the next caller, so a passing fault (a full disk, a file replaced by a
 * deployment) does not disable the part until a restart.
 */
export function onFirstUse<T>(component: string, load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () =>
    (pending ??= load().catch((err: unknown) => {
      pending = null;
      throw new AppError('component_unavailable', `The ${component} could not be loaded; retry in ${RETRY_AFTER_S} seconds`, { component, retryAfter: RETRY_AFTER_S }, { cause: err });
    }));
}
