// Issue #29 ("beyond a demo"): a settings panel for the model options the server accepts from a
// browser (clientOptions). What is set goes with the next request and the server takes it (the
// answer comes); a value out of range is flagged and not sent; the settings survive a reload.
import { expect, test, type Page } from '@playwright/test';
import { answered, lastAnswerText, send } from './helpers.ts';

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('.model-picker select')).toHaveValue('demo:mock');
});

/** Opens the settings panel (a click on its button would close it when open). */
async function openSettings(page: Page) {
  if (!(await page.locator('.settings-menu').evaluate((d: HTMLDetailsElement) => d.open))) await page.locator('.settings-menu > summary').click();
}

/** Sends `text` and answers the `options` of the chat request it made. */
async function sentOptions(page: Page, text: string): Promise<unknown> {
  const [request] = await Promise.all([page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/chat'), send(page, text)]);
  return (request.postDataJSON() as { options?: unknown }).options;
}

test('the model settings go with the next message, out-of-range values are not sent, and they are kept', async ({ page }) => {
  const panel = page.getByRole('form', { name: 'Model settings' });
  await openSettings(page);
  await panel.getByLabel('Temperature').fill('0.3');
  await panel.getByLabel('Max output tokens').fill('256');
  await panel.getByLabel('Thinking').selectOption('off');
  await expect(page.locator('.settings-menu > summary')).toHaveText('Settings (3)');

  expect(await sentOptions(page, 'hello with settings')).toEqual({ temperature: 0.3, maxOutputTokens: 256, thinking: false });
  await expect(lastAnswerText(page)).toContainText('You said: hello with settings', { timeout: 30_000 });
  await expect(page.getByTestId('error')).toHaveCount(0);
  await answered(page);

  // Out of range: flagged in the panel and left out of the request (the server would refuse it).
  await openSettings(page);
  await panel.getByLabel('Temperature').fill('3');
  await expect(panel.getByText('A number from 0 to 2; not sent.')).toBeVisible();
  await expect(panel.getByLabel('Temperature')).toHaveAttribute('aria-invalid', 'true');
  expect(await sentOptions(page, 'and again')).toEqual({ maxOutputTokens: 256, thinking: false });
  await answered(page);

  await page.reload();
  await openSettings(page);
  await expect(panel.getByLabel('Max output tokens')).toHaveValue('256');
  await expect(panel.getByLabel('Thinking')).toHaveValue('off');
  // Emptied fields go back to the provider's default: nothing is sent.
  await panel.getByLabel('Temperature').fill('');
  await panel.getByLabel('Max output tokens').fill('');
  await panel.getByLabel('Thinking').selectOption('');
  expect(await sentOptions(page, 'defaults now')).toBeUndefined();
});
