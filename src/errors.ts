/**
 * The error catalogue: every code the API can answer with, its HTTP status and what it means.
 * docs/error-codes.md lists the same table; test/errors.test.ts keeps the two in step.
 */
export const ERROR_CATALOGUE = {
  validation_failed: { status: 400, description: 'A body field, path parameter, query parameter or header is invalid; `field` names it, `errors` lists the problems (the first 100; `omittedErrors` counts any more).' },
  invalid_json: { status: 400, description: 'The request body is not valid JSON.' },
  malformed_request: { status: 400, description: 'The request is not valid HTTP (a malformed request line or header, an unknown method, both `Content-Length` and `Transfer-Encoding`; the connection is closed after the answer), or its `Host` is missing (HTTP/1.1), repeated, or not `host[:port]` (`field: header/host`).' },
  cycle: { status: 400, description: 'The move or reorder would place a node inside its own subtree.' },
  unknown_node: { status: 400, description: 'A slug named in the request body (for example a reorder item) does not exist in the version.' },
  too_deep: { status: 400, description: 'The tree would be nested deeper than 32 levels.' },
  unknown_parent: { status: 400, description: '`parentSlug` names a node that does not exist in the version.' },
  language_not_enabled: { status: 400, description: 'A translation language is not in the version\'s `languages`.' },
  primary_language_required: { status: 400, description: 'A node is created without a translation in the version\'s primary language, or the primary translation would be deleted.' },
  invalid_document: { status: 400, description: 'An import document is invalid (unknown parent, duplicate slug, cycle, language not enabled, primary language missing); `offending` lists `{ slug, language?, problem }`.' },
  invalid_content: { status: 400, description: 'Content files fail validation; `errors` lists the problems `{ path, line?, message }`, `warnings` the rest (the first 100 of each; `omittedErrors`, `omittedWarnings` count any more).' },
  invalid_selection: { status: 400, description: 'A PDF selection names an unknown topic or section (`unknown`), or holds more than 200 topics (`max`).' },
  invalid_signature: { status: 401, description: 'A webhook delivery without a valid `X-Hub-Signature-256` for the configured secret.' },
  unauthorized: { status: 401, description: 'The credential is missing, malformed, unknown or revoked.' },
  insufficient_scope: { status: 403, description: 'The key is valid but lacks the scope the endpoint needs (`help:write` for writes), or, for webhooks, the OAuth account is not an administrator (`role` names its role).' },
  published_read_only: { status: 403, description: 'Write to a published version without a publisher key while the lock on published versions is on.' },
  push_not_accepted: { status: 403, description: 'A `git push` to `/help/v1/content.git` of a read replica, which takes no pushes: `primary` names the primary\'s repository to push to. (A push to the primary is answered in git\'s protocol: a refused one is reported to git, not with this code.)' },
  forbidden_origin: { status: 403, description: 'A request to the tool server (MCP) from a browser page whose `Origin` is neither the service\'s own nor an allowed one (`HELP_CORS_ORIGINS`, `HELP_MCP_ALLOWED_ORIGINS`); `origin` names it; or the portal\'s feedback form posted from a page of another site (`Origin` or `Sec-Fetch-Site` says so).' },
  not_found: { status: 404, description: 'Unknown route, version, node or translation, or a version the caller may not see; `resource` says which.' },
  unknown_revision: { status: 404, description: 'The `revision` is not a commit of the content history (a full commit id, or at least 7 of its first characters that name one commit).' },
  not_in_revision: { status: 404, description: 'The node (or its translation in that language, or the version) did not exist at that revision, or the revision did not change it (a diff); `revision` and `resource` say which.' },
  method_not_allowed: { status: 405, description: 'The path exists but not with this HTTP method; `allow` lists the methods it has.' },
  request_timeout: { status: 408, description: 'The whole request (headers and body) did not arrive within the server\'s request timeout (`timeoutSeconds`: `HELP_REQUEST_TIMEOUT`, 60 s by default): a body that stopped coming, or came too slowly; the connection is closed after the answer.' },
  conflict: { status: 409, description: 'The version or node slug is already taken (create, rename, duplicate).' },
  stale_write: { status: 409, description: 'The resource changed after `expectedUpdatedAt` / `If-Unmodified-Since`; `currentUpdatedAt` is the stamp to re-read from.' },
  invalid_state: { status: 409, description: 'The version\'s status does not allow the change (for example `isLatest` on a version that is not published).' },
  language_in_use: { status: 409, description: 'A language cannot be removed from a version while translations in it exist.' },
  publishing_disabled: { status: 409, description: 'Publishing through pull requests is off (or, for webhooks, has no secret configured).' },
  request_open: { status: 409, description: 'A publish request for the target version is open or being opened (a new request, discarding the working copy, or deleting the version it was made from, must wait); `request` names it.' },
  request_not_open: { status: 409, description: 'The publish request is not open, so it cannot be cancelled; `status` says what it is.' },
  repository_changed: { status: 409, description: 'The repository\'s branch was moved outside the service (a push or commit by hand); the write is refused and nothing is written. A restart loads what the repository holds.' },
  restore_parent_missing: { status: 409, description: 'A deleted node cannot be restored to its place: its parent at that revision (`parentSlug`) no longer exists. Restore the parent first.' },
  gone: { status: 410, description: 'The endpoint is retired; `use` names its replacement.' },
  precondition_failed: { status: 412, description: 'A write carried `If-Match` or `If-None-Match`, which this service does not evaluate (its entity tags are weak, made for caching reads): nothing was written. Send `If-Unmodified-Since` with the `updatedAt` you read, or `expectedUpdatedAt` in the body.' },
  payload_too_large: { status: 413, description: 'The request body is larger than the limit; `limit` gives it in bytes.' },
  limit_exceeded: { status: 413, description: 'An import holds more than a limit allows (2,000 files, 10 MB of content), or a tool-server request would answer more text than one request is answered with, every call of a batch together (`HELP_MCP_ANSWER_MCHARS`); `limit` names it and `max` gives its value.' },
  unsupported_media_type: { status: 415, description: 'A request body was sent with a Content-Type other than JSON (`application/json` or a `+json` type), with a charset other than UTF-8, or with a Content-Encoding other than gzip, deflate or br.' },
  too_many_requests: { status: 429, description: 'A limit per caller or per address was reached: connections open at once from one address (`HELP_CONNECTIONS_PER_ADDRESS`; answered before any request is read, and the connection closed), tool-server requests at once (`HELP_MCP_CONCURRENCY`, `HELP_MCP_CONCURRENCY_PER_ADDRESS`), git processes serving `content.git` at once (`HELP_GIT_CONCURRENCY`, `HELP_GIT_CONCURRENCY_PER_ADDRESS`), the text the tool server answers one caller with per minute (`HELP_MCP_CALLER_MCHARS`) or all requests together at once, or the feedback one address may send per hour (`HELP_FEEDBACK_PER_HOUR`: the portal\'s form, the API and the tool server together); `limit` names it, `Retry-After` says when to retry.' },
  headers_too_large: { status: 431, description: 'The request\'s headers together are larger than the server takes (`max` bytes, 16 KB by default); the connection is closed after the answer.' },
  internal_error: { status: 500, description: 'An unexpected failure; details are in the server log under the request id, never in the answer.' },
  upstream_failed: { status: 502, description: 'The repository host (GitHub) refused or failed a call (the publish request is recorded as `failed` with the reason), or the upstream identity provider could not be reached during sign-in.' },
  storage_failed: { status: 503, description: 'The change could not be written to the repository (for example a full disk); nothing was changed, and the request can be retried.' },
  version_unavailable: { status: 503, description: 'The version\'s stored data could not be read at start; `reason` says what is broken (to callers who may see unpublished versions). Other versions are served.' },
  starting: { status: 503, description: 'The service is still loading its content (writes, the list of versions and `latest` wait until every version is in); `Retry-After` says when to retry.' },
  version_loading: { status: 503, description: 'The version is still being loaded at start (versions already loaded are served meanwhile), or, for a search, its index is still being built after a start without snapshots and took more than 2 s; `Retry-After` says when to retry.' },
  component_unavailable: { status: 503, description: 'A part of the service that loads on first use (the authorization server, the tool server, the portal, the GitHub client), or the `git` command that serves `content.git`, could not be loaded; `component` names it. Nothing was done; `Retry-After` says when to retry, and the next request tries the load again.' },
  history_building: { status: 503, description: 'The history index is still being read from git (the first start on a data directory without one, or after a restore from backup); `Retry-After` says when to retry. Every other request is answered meanwhile.' },
  revision_not_available: { status: 503, description: 'The read asked for at least a revision (`X-Min-Revision` or `minRevision`) that this service does not serve yet and did not within the wait (`HELP_REPLICA_MIN_REVISION_WAIT`, 5 s by default), or that is not in its history; `revision` names what was asked, `served` what is served, `Retry-After` says when to retry.' },
  primary_unreachable: { status: 503, description: 'A replica could not have a key checked by its primary, which cannot be reached, and has no recent word on that key; `Retry-After` says when to retry.' },
  script_unavailable: { status: 503, description: 'The push script (`GET /cli/help-push.mjs`) is not built and cannot be built where the service runs; `npm run build` writes it.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Problems one error answer lists at most (validation_failed, invalid_content); more are counted, not
 * listed. An input built to hold thousands of problems then costs no more to answer than to read.
 */
export const MAX_LISTED = 100;

/** An error the API answers with: a stable `code`, its HTTP status, and `data` naming what is at fault. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly data: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, data: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.data = data;
  }
}

export const notFound = (resource: 'version' | 'node' | 'translation' | 'route', message: string, data: Record<string, unknown> = {}) =>
  new AppError('not_found', message, { resource, ...data });

export const invalid = (field: string, message: string) =>
  new AppError('validation_failed', `${field} ${message}`, { field, errors: [{ field, message }] });
