import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

const refused = (env: Record<string, string>, name: string) =>
  assert.throws(() => loadConfig(env), (err: Error) => err instanceof ConfigError && err.message.startsWith(name), `${JSON.stringify(env)} is refused naming ${name}`);

test('a number setting takes digits only: white space, hexadecimal and exponents are refused naming the setting, not read as numbers', () => {
  for (const value of [' ', '\t', '0x1F', '4.7e4', '1 2', '+']) {
    refused({ PORT: value }, 'PORT');
    refused({ HELP_INDEX_WORKERS: value }, 'HELP_INDEX_WORKERS');
  }
  assert.equal(loadConfig({ PORT: '47001' }).port, 47001);
  assert.equal(loadConfig({ HELP_INDEX_WORKERS: '0' }).indexWorkers, 0);
});

test('URL settings need http:// or https:// and a host: "help.example.com:8080" is not a URL with the host help.example.com', () => {
  for (const value of ['help.example.com:8080', 'ftp://help.example.com', 'help.example.com', 'https://']) refused({ HELP_PUBLIC_URL: value }, 'HELP_PUBLIC_URL');
  assert.equal(loadConfig({ HELP_PUBLIC_URL: 'https://help.example.com/ignored/path' }).publicUrl, 'https://help.example.com');
  const publishing = { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: 'acme/help', HELP_GITHUB_TOKEN: 'ghp_x' };
  refused({ ...publishing, HELP_GITHUB_API_URL: 'github.example.com:8443/api/v3' }, 'HELP_GITHUB_API_URL');
  refused({ ...publishing, HELP_GITHUB_API_URL: 'ftp://github.example.com' }, 'HELP_GITHUB_API_URL');
  assert.equal(loadConfig({ ...publishing, HELP_GITHUB_API_URL: 'https://github.example.com/api/v3/' }).publishing?.apiUrl, 'https://github.example.com/api/v3');
  // Credentials in a URL would go out with every URL made from it: refused, and not quoted.
  assert.throws(() => loadConfig({ HELP_PUBLIC_URL: 'https://user:s3cret-part@help.example.com' }), (err: Error) => err instanceof ConfigError && err.message.startsWith('HELP_PUBLIC_URL must not hold a user name or password') && !err.message.includes('s3cret-part'));
});

test('a base branch git would not take, and a list of versions that names none, are refused at start', () => {
  const publishing = { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: 'acme/help', HELP_GITHUB_TOKEN: 'ghp_x' };
  for (const branch of ['bad branch', 'a..b', '-main', 'main.lock', 'x~1', 'docs/']) refused({ ...publishing, HELP_GITHUB_BASE_BRANCH: branch }, 'HELP_GITHUB_BASE_BRANCH');
  assert.equal(loadConfig({ ...publishing, HELP_GITHUB_BASE_BRANCH: 'docs/live' }).publishing?.baseBranch, 'docs/live');
  refused({ HELP_PORTAL_VERSIONS: ',,' }, 'HELP_PORTAL_VERSIONS');
});

test('a metrics token with white space in it is refused, named and not quoted', () => {
  for (const value of [' ', 'tok en', 'secret_part\n']) {
    assert.throws(() => loadConfig({ HELP_METRICS_TOKEN: value }), (err: Error) => err instanceof ConfigError && err.message.startsWith('HELP_METRICS_TOKEN') && !err.message.includes('secret_part'));
  }
  assert.equal(loadConfig({ HELP_METRICS_TOKEN: 'metrics-token-1' }).metricsToken, 'metrics-token-1');
});

test('the upstream issuer is https, or http on this machine only', () => {
  const oidc = { HELP_OIDC_CLIENT_ID: 'c', HELP_OIDC_CLIENT_SECRET: 's' };
  refused({ ...oidc, HELP_OIDC_ISSUER: 'http://idp.example.com' }, 'HELP_OIDC_ISSUER');
  refused({ ...oidc, HELP_OIDC_ISSUER: 'localhost:47999' }, 'HELP_OIDC_ISSUER');
  for (const issuer of ['https://login.example.com/realms/staff', 'http://127.0.0.1:47999', 'http://localhost:47999']) {
    assert.doesNotThrow(() => loadConfig({ ...oidc, HELP_OIDC_ISSUER: issuer }), issuer);
  }
});
