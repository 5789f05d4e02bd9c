/**
 * The sign-in pages: plain server-rendered HTML, no script. Every value from a request or a client's
 * registration is escaped; the page's only style sheet is inline with a per-response nonce, so the
 * Content-Security-Policy allows nothing else.
 */

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

const SCOPE_TEXT: Record<string, string> = {
  'help:read': 'Read help content, including drafts and archived versions',
  'help:write': 'Change help content: versions, topics and translations (every change is recorded under your name)',
};

export function consentPage(o: { nonce: string; action: string; csrf: string; clientName: string; clientId: string; redirectHost: string; account: string; role: string; scopes: string[]; resources: string[] }): string {
  const scopes = o.scopes.map((s) => `<li><code>${escapeHtml(s)}</code> — ${escapeHtml(Object.hasOwn(SCOPE_TEXT, s) ? SCOPE_TEXT[s] : s)}</li>`).join('\n');
  const resources = o.resources.map((r) => `<li><code>${escapeHtml(r)}</code></li>`).join('\n');
  return page('Allow access', o.nonce, `<h1>Allow access?</h1>
<p><strong>${escapeHtml(o.clientName)}</strong> <span class="muted">(client <code>${escapeHtml(o.clientId)}</code>, returning to <strong>${escapeHtml(o.redirectHost)}</strong>)</span> asks for access as <strong>${escapeHtml(o.account)}</strong> (${escapeHtml(o.role)}):</p>
<ul>
${scopes}
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

/** The policy every sign-in page is sent with. No form-action: the forms' answers redirect to the client. */
export const pagePolicy = (nonce: string) => `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'`;
