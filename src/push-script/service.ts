/** The service the script talks to: its API base (HELP_URL) and a key (HELP_KEY). */
export interface Service {
  url: string;
  key: string;
}

export interface Answer {
  status: number;
  statusText: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: any;
  text: string;
  /** The API base the request went to. */
  base: string;
}

/** Thrown when the service cannot be reached at all (no answer). */
export class Unreachable extends Error {}

/** Sends one request with the key; answers whatever the service says, or throws Unreachable. */
export async function call(service: Service, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Answer> {
  const base = service.url.replace(/\/+$/, '');
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${service.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(300_000),
    });
  } catch (err) {
    const e = err as Error & { cause?: { message?: string } };
    throw new Unreachable(`Could not reach ${base}: ${e.cause?.message ?? e.message}`);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, statusText: res.statusText, body: parsed, text, base };
}

/** `refused (403 published_read_only): message`, or the start of a body that is not the service's JSON. */
export function refusal(answer: Answer): string {
  const e = (answer.body as { error?: { code?: string; message?: string; resource?: string } } | undefined)?.error;
  // A service that answers, but has no such endpoint: HELP_URL is the service's origin, not its API.
  const base = answer.status === 404 && (e === undefined || e.resource === 'route') ? ` (HELP_URL must be the API's base, ending in /help/v1, such as https://help.example.com/help/v1; it is ${answer.base})` : '';
  if (e === undefined) return `${answer.status} ${answer.statusText}: ${answer.text.slice(0, 500)}${base}`;
  return `refused (${answer.status} ${e.code ?? ''}): ${e.message ?? answer.text.slice(0, 300)}${base}`;
}
