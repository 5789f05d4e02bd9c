import { createHmac, randomBytes } from 'node:crypto';

/** The prefix of a signing secret, as the Standard Webhooks conventions write it. */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export const newSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/**
 * The `webhook-signature` of a delivery: `v1,` and the base64 HMAC-SHA256, keyed with the secret's
 * bytes (the base64 after `whsec_`), of `{webhook-id}.{webhook-timestamp}.{body}`.
 */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
