/**
 * The sign-in pages: plain server-rendered HTML, no script. Every value from a request or a client's
 * registration is escaped; the page's only style sheet is inline with a per-response nonce, so the
 * Content-Security-Policy allows nothing else.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; display: grid; place-items: start center; min-height: 100vh; background: Canvas; color: CanvasText; }
main { width: min(28rem, 100% - 2rem); margin: 3rem 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
input[type=text], input[type=password] { box-sizing: border-box; width: 100%; padding: .6rem; font: inherit; border: 1px solid GrayText; border-radius: .3rem; }
button { font: inherit; padding: .6rem 1.2rem; margin: 1.25rem .5rem 0 0; border-radius: .3rem; border: 1px solid GrayText; cursor: pointer; }
button.primary { background: #0b57d0; color: #fff; border-color: #0b57d0; }
:focus-visible { outline: 3px solid #e37400; outline-offset: 2px; }
.error { border-left: 4px solid #b3261e; padding: .5rem .75rem; background: color-mix(in srgb, #b3261e 12%, Canvas); }
.muted { color: color-mix(in srgb, CanvasText 72%, Canvas); }
ul { padding-left: 1.25rem; }
code { font-size: .95em; }
hr { margin: 1.5rem 0; border: 0; border-top: 1px solid GrayText; }
`;

export interface Page {
  html: string;
  nonce: string;
}

function page(title: string, nonce: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)} · Help content service</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

const errorBox = (message: string | null) => (message ? `<p class="error" role="alert" id="problem">${escapeHtml(message)}</p>` : '');

export function loginPage(o: { nonce: string; action: string; csrf: string; clientName: string; username: string; error: string | null; upstream: { name: string; href: string } | null }): string {
  const described = o.error ? ' aria-describedby="problem"' : '';
  const upstream = o.upstream
    ? `<hr><p><a href="${escapeHtml(o.upstream.href)}">Sign in with ${escapeHtml(o.upstream.name)}</a></p>`
    : '';
  return page('Sign in', o.nonce, `<h1>Sign in</h1>
<p><strong>${escapeHtml(o.clientName)}</strong> asks to use the help content service on your behalf. Sign in to continue.</p>
${errorBox(o.error)}
<form method="post" action="${escapeHtml(o.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(o.csrf)}">
<label for="username">Account name</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(o.username)}"${described}${o.username ? '' : ' autofocus'}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${described}${o.username ? ' autofocus' : ''}>
<button type="submit" class="primary">Sign in</button>
</form>
<form method="post" action="${escapeHtml(o.action.replace(/\/login$/, '/abort'))}">
<input type="hidden" name="csrf" value="${escapeHtml(o.csrf)}">
<button type="submit">Cancel</button>
</form>
${upstream}`);
}

/** What each scope the consent page can list lets the application do, in a person's words. */
const SCOPE_TEXT: Record<string, string> = {
  openid: 'Confirm to the application which account you signed in with',
  profile: 'See your account name',
  offline_access: 'Keep this access while you are away: the application renews it without asking you again, until it is revoked',
  'help:read': 'Read help content, including drafts and archived versions',
  'help:write': 'Change help content: versions, topics and translations (every change is recorded under your name)',
};

/** Those of `scopes` a token of this service can carry (the consent page has words for them), in a fixed order. */
export const describedScopes = (scopes: ReadonlySet<string>) => Object.keys(SCOPE_TEXT).filter((s) => scopes.has(s));

export function consentPage(o: { nonce: string; action: string; csrf: string; clientName: string; clientId: string; redirectHost: string; account: string; role: string; scopes: string[]; noContent: boolean; resources: string[] }): string {
  const items = o.scopes.map((s) => `<li>${escapeHtml(SCOPE_TEXT[s] ?? s)} <span class="muted">(<code>${escapeHtml(s)}</code>)</span></li>`);
  // Said outright: an application that asked for none of the help scopes gets no access to content.
  if (o.noContent) items.push('<li>No access to help content</li>');
  const resources = o.resources.map((r) => `<li><code>${escapeHtml(r)}</code></li>`).join('\n');
  return page('Allow access', o.nonce, `<h1>Allow access?</h1>
<p><strong>${escapeHtml(o.clientName)}</strong> <span class="muted">(client <code>${escapeHtml(o.clientId)}</code>, returning to <strong>${escapeHtml(o.redirectHost)}</strong>)</span> asks for access as <strong>${escapeHtml(o.account)}</strong> (${escapeHtml(o.role)}), to:</p>
<ul>
${items.join('\n')}
</ul>
<p>For use with:</p>
<ul>
${resources}
</ul>
<form method="post" action="${escapeHtml(o.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(o.csrf)}">
<button type="submit" class="primary" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
<p class="muted">Only allow applications you trust. You can stop this access at any time by asking an administrator to revoke it.</p>`);
}

export function messagePage(o: { nonce: string; title: string; message: string }): string {
  return page(o.title, o.nonce, `<h1>${escapeHtml(o.title)}</h1>\n<p>${escapeHtml(o.message)}</p>`);
}

/**
 * The sign-out question. No script submits it: the person presses a button. `xsrf` is the
 * authorization server's token for the sign-out; `logout=yes` ends the whole session, the other
 * button only what the named application was given (or nothing, when none is named).
 */
export function logoutPage(o: { nonce: string; action: string; xsrf: string; clientName: string | null; signedIn: boolean }): string {
  const form = (fields: string) => `<form method="post" action="${escapeHtml(o.action)}">
<input type="hidden" name="xsrf" value="${escapeHtml(o.xsrf)}">
${fields}
</form>`;
  if (!o.signedIn) {
    return page('Sign out', o.nonce, `<h1>Sign out</h1>
<p>You are not signed in to the help content service.</p>
${form('<input type="hidden" name="logout" value="yes">\n<button type="submit" class="primary">Continue</button>')}`);
  }
  const client = o.clientName ? `<p><strong>${escapeHtml(o.clientName)}</strong> asks you to sign out.</p>\n` : '';
  const other = o.clientName ? `Sign out of ${escapeHtml(o.clientName)} only` : 'Stay signed in';
  return page('Sign out', o.nonce, `<h1>Sign out of the help content service?</h1>
${client}${form(`<button type="submit" class="primary" name="logout" value="yes">Sign out</button>
<button type="submit">${other}</button>`)}`);
}

export function signedOutPage(o: { nonce: string; clientName: string | null }): string {
  const from = o.clientName ? ` of <strong>${escapeHtml(o.clientName)}</strong>` : '';
  return page('Signed out', o.nonce, `<h1>Signed out</h1>\n<p>You have signed out${from}. You can close this page.</p>`);
}

/**
 * Answers a page with the headers every sign-in page has: its policy with a fresh nonce, never
 * cached, and the referrer kept to this origin (with no-referrer browsers send "Origin: null" on the
 * forms' POSTs, and the Origin check of the forms needs the real one; nothing goes to a client's site).
 */
export function sendPage(ctx: Context, status: number, render: (nonce: string) => string): void {
  const nonce = randomBytes(16).toString('base64url');
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', pagePolicy(nonce));
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.body = render(nonce);
}

/** The policy every sign-in page is sent with. No form-action: the forms' answers redirect to the client. */
export const pagePolicy = (nonce: string) => `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'`;
