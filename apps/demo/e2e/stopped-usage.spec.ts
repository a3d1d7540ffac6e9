// Issue #29: a stopped turn keeps its cost. The usage the provider reported before the Stop (the
// mock speaks Anthropic's wire: the input count comes in message_start, the output count only at
// the end) is what the footer showed while streaming, and stays under the message after the Stop
// and after a reload (it is saved with the thread). Desktop and phone (playwright.config.ts).
import { expect, test } from '@playwright/test';
import { longSentence } from '../src/server/mock-script.ts';
import { answers, lastAnswerText, send, stopButton } from './helpers.ts';

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('a stopped answer keeps the usage and cost it showed while streaming, also after a reload', async ({ page }) => {
  await send(page, 'tell me something long');
  // The machine may be busy: the bound is generous, the check is the same.
  await expect(lastAnswerText(page)).toContainText(longSentence(2), { timeout: 30_000 });
  const usage = answers(page).last().getByTestId('usage');
  // While streaming: what the provider reported so far.
  await expect(usage).toHaveText(/^\d+ in · \d+ out · \$\d/);
  const live = (await usage.textContent()) ?? '';
  await stopButton(page).click();
  await expect(page.getByTestId('stopped')).toBeVisible();
  await expect(usage).toHaveText(live);
  await page.reload();
  await expect(lastAnswerText(page)).toContainText(longSentence(2));
  await expect(answers(page).last().getByTestId('usage')).toHaveText(live);
});
