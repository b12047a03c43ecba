/**
 * The dashboard against a broker with JWT auth on (docs/dashboard.md): the static app loads without a token,
 * the first 401 prompts for one, a rejected or expired token prompts again, the token is sent on every call,
 * and actions above the token's role are disabled (read-only: no mutations and no maintenance toggles;
 * read-write: push and configure but not delete; admin: everything).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mint } from '../../server/test/support/auth.js';
import { getQueue, push } from '@queen/client/api';
import { useBroker } from '../../server/test/support/harness.js';
import { brokerApi, expectStatus, found } from '../../server/test/support/sdk-api.js';
import { screenshot, useBrowser } from './support/browser.js';
import { count, eventually, open, waitText } from './support/dashboard.js';

const SECRET = 'dashboard-test-secret-0123456789abcdef';
const QUEUE = 'auth.orders';

const setup = useBroker({ JWT_ENABLED: 'true', JWT_ALGORITHM: 'HS256', JWT_SECRET: SECRET, JWT_CLOCK_SKEW: '0' }, async ({ broker }) => {
  const admin = await mint(SECRET, { claims: { sub: 'seed', role: 'admin' } });
  await expectStatus(brokerApi(broker.url, { Authorization: `Bearer ${admin}` }), (h) => push(h, { items: [{ queue: QUEUE, payload: { n: 1 } }, { queue: QUEUE, payload: { n: 2 } }] }), 201);
});

const ui = useBrowser();

/** A 401 is the expected answer while no (valid) token is set; nothing else may go wrong. */
const is401 = (p: string): boolean => p.startsWith('HTTP 401: ') || p.includes('status of 401 (Unauthorized)');
const only401 = (): void => assert.deepEqual(ui.watched.takeProblems(is401), []);

async function login(token: string): Promise<void> {
  await ui.page.getByTestId('token-input').fill(token);
  await ui.page.getByTestId('login-submit').click();
}

test('without a token the app loads and asks for one; a bad token is refused and asked again', async () => {
  const res = await ui.page.goto(`${setup.broker.url}/queues`);
  assert.equal(res?.status(), 200); // static files are public
  await ui.page.getByTestId('login').waitFor();
  await login('not-a-jwt');
  await ui.page.getByTestId('login-error').waitFor();
  const wrongKey = await mint('another-secret-another-secret-0000', { claims: { sub: 'mallory', role: 'admin' } });
  await login(wrongKey);
  await ui.page.getByTestId('login-error').waitFor();
  await screenshot(ui.page, 'login');
  only401();
});

test('a read-only token reads every figure but every action is disabled', async () => {
  const token = await mint(SECRET, { claims: { sub: 'reader', role: 'read-only' } });
  await open(ui.page, setup.broker.url, '/');
  await ui.page.getByTestId('login').waitFor();
  await login(token);
  await ui.page.getByTestId('login').waitFor({ state: 'detached' });
  await waitText(ui.page.getByTestId('count-messages'), count(2));
  only401(); // the calls made with the previous, rejected token
  await waitText(ui.page.getByTestId('who'), 'reader · READ_ONLYLog out');
  // The maintenance toggles (an ADMIN route) are not offered, and no 403 reached the console.
  assert.equal(await ui.page.getByTestId('toggle-push-maintenance').count(), 0);
  await open(ui.page, setup.broker.url, '/queues');
  assert.equal(await ui.page.getByTestId('create-queue').isDisabled(), true);
  assert.equal(await ui.page.getByTestId('create-queue').getAttribute('title'), 'needs READ_WRITE');
  await open(ui.page, setup.broker.url, `/queues/${QUEUE}`);
  await waitText(ui.page.getByTestId('q-total'), '2');
  for (const id of ['publish', 'configure', 'clear-queue', 'delete-queue']) assert.equal(await ui.page.getByTestId(id).isDisabled(), true, id);
  assert.equal(await ui.page.getByTestId('delete-queue').getAttribute('title'), 'needs ADMIN');
  await screenshot(ui.page, 'read-only');
  assert.deepEqual(ui.watched.takeProblems(), []);
});

test('a read-write token can publish but not delete; an admin token can do everything', async () => {
  await ui.page.getByRole('button', { name: 'Log out' }).click();
  await ui.page.getByTestId('login').waitFor();
  const writer = await mint(SECRET, { claims: { sub: 'writer', roles: ['read-write'] } });
  await login(writer);
  await ui.page.getByTestId('login').waitFor({ state: 'detached' });
  await open(ui.page, setup.broker.url, `/queues/${QUEUE}`);
  await waitText(ui.page.getByTestId('q-total'), '2');
  assert.equal(await ui.page.getByTestId('delete-queue').isDisabled(), true);
  await ui.page.getByTestId('publish').click();
  await ui.page.getByTestId('publish-submit').click();
  await ui.page.getByTestId('publish-result').waitFor();
  assert.match((await ui.page.getByTestId('publish-result').textContent()) ?? '', /^queued · /);
  const admin = await mint(SECRET, { claims: { sub: 'root', role: 'admin' } });
  const asAdmin = brokerApi(setup.broker.url, { Authorization: `Bearer ${admin}` });
  await eventually(async () => found(await getQueue(asAdmin, QUEUE)).totals.total === 3, 'the published message');

  await ui.page.getByTestId('modal').locator('.modal-foot').getByRole('button', { name: 'Close' }).click();
  await ui.page.getByRole('button', { name: 'Log out' }).click();
  await login(admin);
  await ui.page.getByTestId('login').waitFor({ state: 'detached' });
  await open(ui.page, setup.broker.url, `/queues/${QUEUE}`);
  assert.equal(await ui.page.getByTestId('delete-queue').isDisabled(), false);
  await ui.page.getByTestId('toggle-push-maintenance').waitFor();
  only401();
});

test('an expired token gets a 401 and the prompt comes back', async () => {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + 8;
  const shortLived = await mint(SECRET, { claims: { sub: 'brief', role: 'admin', iat: now, exp } });
  await ui.page.getByRole('button', { name: 'Log out' }).click();
  await login(shortLived);
  await ui.page.getByTestId('login').waitFor({ state: 'detached' });
  await waitText(ui.page.getByTestId('q-total'), '3');
  await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 + 1500 - Date.now()))); // past exp (JWT_CLOCK_SKEW=0)
  await ui.page.getByTestId('refresh').click();
  await ui.page.getByTestId('login').waitFor();
  await ui.page.getByTestId('login-error').waitFor();
  only401();
});
