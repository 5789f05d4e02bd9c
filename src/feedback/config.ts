import { type Fail, onOff, whole } from '../env-values.ts';
/** What readers tell the service: feedback on pages, and the search report. */
export interface FeedbackConfig {
  /** Feedback one client address may send per hour, through the portal, the API and the tool server together (`HELP_FEEDBACK_PER_HOUR`, default 30). */
  readonly perAddressPerHour: number;
  /** Bytes of feedback kept on disk (`HELP_FEEDBACK_MB`, default 8 MB): beyond, the oldest entries are dropped. */
  readonly maxBytes: number;
  /** Whether searches are counted for the search report (`HELP_SEARCH_REPORT`, default on). */
  readonly searchReport: boolean;
  /** Distinct queries the search report keeps per version and language (`HELP_SEARCH_REPORT_QUERIES`, default 1,000): beyond, the rarest are forgotten. */
  readonly reportQueries: number;
}


/** The feedback and search report settings from the environment; `fail` makes the error that stops the start. */
export function feedbackConfig(env: NodeJS.ProcessEnv, fail: Fail): FeedbackConfig {
  return Object.freeze({
    perAddressPerHour: whole(env, 'HELP_FEEDBACK_PER_HOUR', 30, 1, 100_000, fail),
    maxBytes: whole(env, 'HELP_FEEDBACK_MB', 8, 1, 4096, fail) * 1024 * 1024,
    searchReport: onOff(env, 'HELP_SEARCH_REPORT', true, fail),
    reportQueries: whole(env, 'HELP_SEARCH_REPORT_QUERIES', 1000, 10, 100_000, fail),
  });
}
