import type { Config } from './config.ts';
import { DataDirLockedError } from './storage/lock-file.ts';
import { BrokenRepositoryError } from './storage/repository.ts';

/** File-system failures that mean the data directory cannot be used as it is. */
const DATA_DIR_CODES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a file is in the way',
  ENAMETOOLONG: 'the path or a name in it is too long',
  ENOENT: 'a folder on the path does not exist and cannot be made (a volume not mounted, or a link to nowhere)',
  ELOOP: 'too many symbolic links in the path',
};

/**
 * The one line an operator reads when the service cannot start: what is wrong and what to change.
 * Null for a failure nobody anticipated (the caller prints its message, and its stack on request).
 */
export function describeStartupError(err: unknown, config: Pick<Config, 'port' | 'host' | 'dataDir'>): string | null {
  if (err instanceof DataDirLockedError || err instanceof BrokenRepositoryError) return err.message;
  const e = err as NodeJS.ErrnoException & { syscall?: string; port?: number };
  if (e.syscall === 'getaddrinfo') {
    return `HOST ${config.host} is not a name this machine can look up (${e.code}); set HOST to one of its addresses or names, 127.0.0.1 or 0.0.0.0`;
  }
  if (e.syscall === 'listen' || e.syscall === 'bind') {
    if (e.code === 'EADDRINUSE') return `Port ${config.port} on ${config.host} is already in use (another server?); stop it or set PORT to a free port`;
    if (e.code === 'EADDRNOTAVAIL') return `HOST ${config.host} is not an address of this machine; set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0`;
    if (e.code === 'EACCES') return `Not allowed to listen on port ${config.port} (ports below 1024 need privileges); set PORT to 1024 or above and put a proxy in front`;
  }
  const reason = e.code ? DATA_DIR_CODES[e.code] : undefined;
  if (reason && typeof e.path === 'string' && (e.path === config.dataDir || e.path.startsWith(`${config.dataDir}/`) || config.dataDir.startsWith(e.path))) {
    // A folder restored or copied as another user (root) is this user's to own, not a setting to change.
    const fix = e.code === 'EACCES' || e.code === 'EPERM' ? 'give this user the folder (chown -R), or set HELP_DATA_DIR to one it can write' : 'set HELP_DATA_DIR to a folder this user can write';
    return `The data directory ${config.dataDir} cannot be used: ${reason} (${e.code} on ${e.syscall ?? 'access'} of ${e.path}); ${fix}`;
  }
  return null;
}
