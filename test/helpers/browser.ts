/**
 * A person in a browser, as far as the sign-in pages are concerned: a cookie jar (with paths), manual
 * redirects, and forms read from the HTML and submitted with their hidden fields.
 */
export interface Page {
  url: string;
  status: number;
  headers: Headers;
  html: string;
}

interface Cookie {
  origin: string;
  name: string;
  value: string;
  path: string;
}

export class Browser {
  private cookies: Cookie[] = [];

  private readonly origins: Set<string>;

  /** A browser that follows redirects among `origins` (the service, and an identity provider when one is used). */
  constructor(...origins: string[]) {
    this.origins = new Set(origins);
  }

  /** Follows redirects within the service; stops at one that leaves it (the client's redirect URI) and returns its URL. */
  async open(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Page> {
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hops = 0; hops < 20; hops++) {
      const target = new URL(url);
      if (!this.origins.has(target.origin)) return { url, status: 0, headers: new Headers(), html: '' };
      const headers: Record<string, string> = { ...(init.headers ?? {}), cookie: this.cookieHeader(target) };
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res = await fetch(url, { method, body, headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
      this.store(res.headers.getSetCookie(), target);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        url = new URL(location, url).href;
        method = 'GET';
        body = undefined;
        continue;
      }
      return { url, status: res.status, headers: res.headers, html: await res.text() };
    }
    throw new Error('too many redirects');
  }

  /** Submits the form whose action ends with `actionSuffix`, with its hidden fields and `fields`. */
  submit(page: Page, actionSuffix: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const forms = [...page.html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)];
    const form = forms.find((f) => decode(f[1]).endsWith(actionSuffix));
    if (!form) throw new Error(`no form ending in ${actionSuffix} on ${page.url}:\n${page.html}`);
    const hidden: Record<string, string> = {};
    for (const m of form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) hidden[m[1]] = decode(m[2]);
    return this.open(new URL(decode(form[1]), page.url).href, { method: 'POST', form: { ...hidden, ...fields }, headers });
  }

  private cookieHeader(url: URL): string {
    const path = url.pathname;
    return this.cookies
      .filter((c) => c.origin === url.origin)
      .filter((c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private store(setCookies: string[], url: URL): void {
    const requestPath = url.pathname;
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';').map((p) => p.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = requestPath.replace(/\/[^/]*$/, '') || '/';
      let expired = false;
      for (const a of attrs) {
        const [k, v = ''] = a.split('=');
        if (k.toLowerCase() === 'path') path = v;
        if (k.toLowerCase() === 'expires' && Date.parse(v) < Date.now()) expired = true;
        if (k.toLowerCase() === 'max-age' && Number(v) <= 0) expired = true;
      }
      this.cookies = this.cookies.filter((c) => !(c.origin === url.origin && c.name === name && c.path === path));
      if (!expired) this.cookies.push({ origin: url.origin, name, value, path });
    }
  }
}

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
