// Issue #29 ("beyond a demo"): search across threads. A query lists the saved threads whose title
// or messages (the answers too) hold every word, with the words around the match; a hit opens its
// thread; clearing the query brings the list back.
import { expect, test, type Page } from '@playwright/test';
import { answered, lastAnswerText, send } from './helpers.ts';

async function newChat(page: Page, text: string) {
  await page.getByRole('button', { name: '+ New chat' }).click();
  await send(page, text);
  await answered(page);
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('search finds threads by their messages and answers, and a hit opens the thread', async ({ page }) => {
  await send(page, 'hello from Lisbon');
  await answered(page);
  await newChat(page, 'show me some code');
  await newChat(page, 'hi there');
  const search = page.getByRole('searchbox', { name: 'Search chats' });
  const results = page.getByRole('navigation', { name: 'Search results' }).getByRole('button');

  // A word of a question.
  await search.fill('lisbon');
  await expect(results).toHaveCount(1);
  await expect(results.first()).toContainText('hello from Lisbon');
  await expect(page.getByRole('navigation', { name: 'Threads' })).toHaveCount(0);

  // Words that only an answer holds (the table of dialects), with the words around them.
  await search.fill('anthropic NDJSON');
  await expect(results).toHaveCount(1);
  await expect(results.first().locator('.hit-title')).toHaveText('show me some code');
  await expect(results.first().locator('.hit-snippet')).toContainText('anthropic');

  await results.first().click();
  await expect(page.getByTestId('user-message')).toHaveText(['show me some code']);
  await expect(lastAnswerText(page)).toContainText('NDJSON');

  await search.fill('no such words anywhere');
  await expect(results).toHaveCount(0);
  await expect(page.getByText('No chat holds “no such words anywhere”.')).toBeVisible();

  await search.press('Escape');
  await expect(search).toHaveValue('');
  await expect(page.getByRole('navigation', { name: 'Threads' }).getByRole('button', { name: 'hi there', exact: true })).toBeVisible();
});
