import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../auth/json-file.ts';

/** The authorization server's own secrets: the key that signs ID tokens and the keys that sign its cookies. */
export interface ServerSecrets {
  signingKey: Record<string, unknown>;
  cookieKeys: string[];
}

/**
 * Made on first start and kept in `oauth/secrets.json` (mode 600), so sessions, cookies and ID tokens
 * stay valid across restarts. Deleting the file signs everyone out.
 */
export function loadSecrets(dataDir: string): ServerSecrets {
  const path = join(dataDir, 'oauth', 'secrets.json');
  try {
    return JSON.parse(fs.readFileSync(path, 'utf8')) as ServerSecrets;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${path} is unreadable; delete it to sign everyone out and start afresh`, { cause: err });
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const secrets: ServerSecrets = {
    signingKey: { ...jwk, use: 'sig', alg: 'ES256', kid: randomBytes(8).toString('base64url') },
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
  fs.mkdirSync(join(dataDir, 'oauth'), { recursive: true, mode: 0o700 });
  writeAtomic(path, `${JSON.stringify(secrets, null, 2)}\n`);
  return secrets;
}
