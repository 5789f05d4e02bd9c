/** Durations the storage layer reports, in seconds: a commit, a snapshot written, a pack merge, a git gc. */
export type Timing = 'commit' | 'snapshot' | 'pack_merge' | 'repack' | 'gc';

/** Where storage reports its durations (the service's metrics); storage itself keeps none. */
export type TimingSink = (what: Timing, seconds: number) => void;
