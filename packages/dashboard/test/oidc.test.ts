/**
 * OpenID Connect sign-in in Chromium against a real, certified provider implementation (the `oidc-provider`
 * package, started here with its development login and consent pages) and a broker that verifies the tokens
 * against the provider's JWKS: authorization code with PKCE, who is signed in and the role, renewal with the
 * refresh token before expiry, the prompt again when the sign-in cannot be renewed, sign-out at the provider,
 * and token pasting still offered.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { push } from '@queen/client/api';
import { mint } from '../../server/test/support/auth.js';
import { createDatabase, freePort, startBroker, type BrokerProcess, type TestDatabase } from '../../server/test/support/harness.js';
import { brokerApi, expectStatus } from '../../server/test/support/sdk-api.js';
import { docImagePath, useBrowser } from './support/browser.js';
import { count, waitText } from './support/dashboard.js';

const CLIENT_ID = 'queen-dashboard';
/** ID tokens live 40 s; the dashboard renews 30 s before `exp`, so 10 s after a sign-in. */
const ID_TOKEN_TTL_S = 40;
const USERS: Record<string, { name: string; role: string }> = {
  ada: { name: 'Ada Lovelace', role: 'admin' },
  rita: { name: 'Rita Reader', role: 'read-only' },
};

let db: TestDatabase;
let broker: BrokerProcess;
let idp: http.Server;
let issuer = '';
let allowRefresh = true;

before(async () => {
  const port = await freePort();
  const brokerUrl = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  idp = http.createServer();
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT_ID, token_endpoint_auth_method: 'none', application_type: 'web',
      redirect_uris: [`${brokerUrl}/`], post_logout_redirect_uris: [`${brokerUrl}/`],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    }],
    jwks: { keys: [jwk] },
    claims: { openid: ['sub'], profile: ['name', 'role'] },
    conformIdTokenClaims: false, // the profile claims (name, role) go into the ID token of the code flow
    ttl: { IdToken: ID_TOKEN_TTL_S, AccessToken: ID_TOKEN_TTL_S },
    issueRefreshToken: async () => allowRefresh,
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({ sub: id, name: USERS[id]?.name ?? id, role: USERS[id]?.role ?? 'read-only' }),
    }),
  });
  idp.on('request', provider.callback());
  db = await createDatabase();
  broker = await startBroker(db, {
    PORT: String(port), JWT_ENABLED: 'true', JWT_ALGORITHM: 'RS256', JWT_JWKS_URL: `${issuer}/jwks`,
    JWT_ISSUER: issuer, JWT_AUDIENCE: CLIENT_ID, JWT_CLOCK_SKEW: '0',
    DASHBOARD_OIDC_ISSUER: issuer, DASHBOARD_OIDC_CLIENT_ID: CLIENT_ID, DASHBOARD_OIDC_SCOPES: 'openid profile',
  });
  const seed = await mint(privateKey as never, { kid: 'test-key', claims: { sub: 'seed', role: 'admin', iss: issuer, aud: CLIENT_ID } });
  await expectStatus(brokerApi(broker.url, { Authorization: `Bearer ${seed}` }), (h) => push(h, { items: [{ queue: 'oidc.orders', payload: { n: 1 } }, { queue: 'oidc.orders', payload: { n: 2 } }] }), 201);
});
after(async () => {
  await broker?.stop();
  await db?.close();
  idp?.closeAllConnections();
  await new Promise<void>((resolve) => (idp ? idp.close(() => resolve()) : resolve()));
});

const ui = useBrowser();
const stored = (): Promise<string | null> => ui.page.evaluate(() => sessionStorage.getItem('queen.dashboard.token'));

/** Goes through the provider's login and consent pages as `user`. */
async function providerLogin(user: string): Promise<void> {
  await ui.page.waitForURL((u) => u.origin === issuer);
  await ui.page.locator('input[name=login]').fill(user);
  await ui.page.locator('input[name=password]').fill('any password');
  await ui.page.locator('button[type=submit]').click();
  const consent = ui.page.getByRole('button', { name: 'Continue' });
  await consent.waitFor({ timeout: 10_000 });
  await consent.click();
  await ui.page.waitForURL((u) => u.origin === broker.url);
}

test('the served settings name the provider; the prompt offers it and keeps token pasting', async () => {
  const settings = await (await fetch(`${broker.url}/dashboard-config.json`)).json();
  assert.deepEqual(settings, { oidc: { issuer, clientId: CLIENT_ID, scopes: 'openid profile', audience: null } });
  await ui.page.goto(`${broker.url}/queues`);
  await ui.page.getByTestId('login').waitFor();
  await waitText(ui.page.getByTestId('oidc-signin'), `Sign in with ${new URL(issuer).host}`);
  await ui.page.getByTestId('paste-token').locator('summary').click();
  await ui.page.getByTestId('token-input').waitFor();
  await ui.page.screenshot({ path: docImagePath('sign-in.png') });
});

test('sign-in with authorization code + PKCE: back on the page it started from, who and the role, API calls pass; renewed before expiry', async () => {
  allowRefresh = true;
  await ui.page.goto(`${broker.url}/queues/oidc.orders`);
  const request = ui.page.waitForRequest((r) => r.url().startsWith(`${issuer}/auth?`));
  await ui.page.getByTestId('oidc-signin').click();
  const authorize = new URL((await request).url());
  assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(authorize.searchParams.get('client_id'), CLIENT_ID);
  await providerLogin('ada');
  await waitText(ui.page.getByTestId('who'), 'Ada Lovelace · ADMINLog out');
  await waitText(ui.page.getByTestId('q-total'), count(2));
  assert.equal(new URL(ui.page.url()).pathname, '/queues/oidc.orders', 'back where the sign-in started, the code gone from the URL');
  assert.equal(new URL(ui.page.url()).search, '');
  assert.equal(await ui.page.getByTestId('login').count(), 0);
  const first = await stored();
  assert.ok(first !== null);
  // Renewal: 30 s before the ID token's exp the refresh token buys a new one, without a prompt.
  const until = Date.now() + (ID_TOKEN_TTL_S + 5) * 1000;
  while ((await stored()) === first) {
    assert.ok(Date.now() < until, 'the token was not renewed before it expired');
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(await ui.page.getByTestId('login').count(), 0);
  await ui.page.getByTestId('refresh').click();
  await waitText(ui.page.getByTestId('q-total'), count(2));
});

test('sign-out ends the provider session and comes back to the prompt', async () => {
  await ui.page.getByTestId('sign-out').click();
  await ui.page.waitForURL((u) => u.origin === issuer);
  await ui.page.getByRole('button', { name: 'Yes, sign me out' }).click();
  await ui.page.waitForURL((u) => u.origin === broker.url);
  await ui.page.getByTestId('login').waitFor();
  assert.equal(await stored(), null);
});

test('without a refresh token the expiry brings the prompt back; a read-only user sees the role', async () => {
  allowRefresh = false;
  await ui.page.getByTestId('oidc-signin').click();
  await providerLogin('rita');
  await waitText(ui.page.getByTestId('who'), 'Rita Reader · READ_ONLYLog out');
  await ui.page.goto(`${broker.url}/queues`);
  assert.equal(await ui.page.getByTestId('create-queue').isDisabled(), true);
  await ui.page.getByTestId('login-notice').waitFor({ timeout: (ID_TOKEN_TTL_S + 5) * 1000 });
  await waitText(ui.page.getByTestId('login-notice'), 'Your sign-in expired. Sign in again.');
  assert.equal(await stored(), null);
});
