// Issue #29 ("beyond a demo"): when the browser refuses to save (localStorage full), the chat says
// so where it stays in view, and says nothing once saving works again. The quota is simulated:
// setItem throws the browser's QuotaExceededError for the chats' records while `__storageFull` is set.
import { expect, test } from '@playwright/test';
import { answered, lastAnswerText, send } from './helpers.ts';

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    const setItem = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key: string, value: string) {
      if ((window as { __storageFull?: boolean }).__storageFull && key.startsWith('parlance-demo:thread:')) {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      setItem.call(this, key, value);
    };
  });
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('a chat that cannot be saved says so in view, until saving works again', async ({ page }) => {
  await page.evaluate(() => {
    (window as { __storageFull?: boolean }).__storageFull = true;
  });
  await send(page, 'hi while the disk is full');
  const notSaved = page.getByTestId('not-saved');
  await expect(notSaved).toBeVisible();
  await expect(notSaved).toHaveText(/This chat is not being saved/);
  await expect(notSaved).toBeInViewport();
  await answered(page);
  await expect(notSaved).toBeInViewport();
  // Room again: the next save works and the warning goes.
  await page.evaluate(() => {
    (window as { __storageFull?: boolean }).__storageFull = false;
  });
  await send(page, 'and now?');
  await expect(lastAnswerText(page)).toContainText('and now?', { timeout: 30_000 });
  await answered(page);
  await expect(notSaved).toBeHidden();
  await page.reload();
  await expect(page.getByTestId('user-message')).toHaveText(['hi while the disk is full', 'and now?']);
});
