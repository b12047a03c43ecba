/** Helpers for driving the dashboard in a page: navigation, waiting for exact texts, the app's number format. */
import type { Locator, Page } from 'playwright-core';

/** The dashboard's count format (docs/dashboard.md): `999,999`. */
export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Goes to `path` of the broker and waits until the shell rendered. */
export async function open(page: Page, baseUrl: string, path: string): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByTestId('page-title').waitFor();
}

/** Navigates inside the app (history API, no reload) by clicking a sidebar link. */
export async function nav(page: Page, label: string): Promise<void> {
  await page.locator('nav.sidebar').getByRole('link', { name: label, exact: true }).click();
  await page.waitForFunction((name) => document.querySelector('[data-testid=page-title]')?.textContent === name, label);
}

/** Waits until the locator's text equals `expected` (trimmed); fails with the last text seen. */
export async function waitText(target: Locator, expected: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    last = ((await target.first().textContent({ timeout: Math.max(1, until - Date.now()) }).catch(() => null)) ?? '').trim();
    if (last === expected) return;
    if (Date.now() > until) throw new Error(`expected text ${JSON.stringify(expected)}, last seen ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the locator matches exactly `n` elements. */
export async function waitCount(target: Locator, n: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const seen = await target.count();
    if (seen === n) return;
    if (Date.now() > until) throw new Error(`expected ${n} elements, saw ${seen}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls `check` (an API read) until it returns true. */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Confirms the open confirmation modal, typing `typed` first when given, and waits for it to close. */
export async function confirm(page: Page, typed?: string): Promise<void> {
  const modal = page.getByTestId('modal');
  if (typed !== undefined) {
    await modal.getByTestId('confirm').isDisabled();
    await modal.getByTestId('type-to-confirm').fill(typed);
  }
  await modal.getByTestId('confirm').click();
  await modal.waitFor({ state: 'detached' });
}
