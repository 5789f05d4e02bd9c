/**
 * The secret an Authorization header carries: `Bearer <secret>`, or HTTP Basic as git credential
 * helpers send it (any user name, the secret as the password; some tools put it in the user name
 * and leave the password empty). Null when the header has neither form.
 */
export function secretOf(header: string): string | null {
  const bearer = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic[ ]+([A-Za-z0-9+/]+=*)\s*$/i.exec(header);
  if (!basic) return null;
  const pair = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon < 0) return null;
  const secret = pair.slice(colon + 1) || pair.slice(0, colon);
  return secret === '' || /\s/.test(secret) ? null : secret;
}
