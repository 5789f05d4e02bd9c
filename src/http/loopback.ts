/** Names under which a machine reaches itself; URL.hostname keeps the brackets of [::1]. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether the URL names this machine over loopback (false for what is not a URL). */
export function isLoopback(url: string | URL): boolean {
  if (typeof url === 'string' && !URL.canParse(url)) return false;
  return LOOPBACK.has(new URL(url).hostname);
}
