import { randomBytes } from 'node:crypto';

/**
 * Names for the files a process makes in the git dir's temp and spare folders: the process id, a
 * random part drawn once per process, and a counter. Unique within the process by the counter and
 * across processes by the rest, without drawing random bytes for every file (a commit names two or
 * three, and each draw took tens of microseconds on its path on the bench machine).
 */
const PROCESS_PART = `${process.pid}-${randomBytes(4).toString('hex')}`;
let next = 0;

/** `<pid>-<hex>`: a name this process has not given before, and that another process's names do not take (their pid or random part differs). */
export const uniqueName = (): string => `${PROCESS_PART}${(next++).toString(16).padStart(6, '0')}`;
