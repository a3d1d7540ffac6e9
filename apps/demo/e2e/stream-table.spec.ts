// Issue #29, item 6: a table that streams never shows its raw syntax (`| Dialect |` as text);
// it appears once its header and delimiter rows are whole, then grows row by row. Every rendered
// state of the answer is checked (a MutationObserver in the page), on desktop and phone.
import { expect, test } from '@playwright/test';
import { answered, send } from './helpers.ts';

test('a streaming table shows no raw `|` in any rendered state', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { rawPipes: string[] }).rawPipes = seen;
    const messages = document.querySelector('[data-testid="messages"]')!;
    new MutationObserver(() => {
      for (const answer of messages.querySelectorAll('[data-testid="answer-text"]')) {
        // What reads as text: the answer less its tables and code.
        const copy = answer.cloneNode(true) as HTMLElement;
        for (const el of copy.querySelectorAll('table, pre, code')) el.remove();
        if (copy.textContent?.includes('|')) seen.push(copy.textContent);
      }
    }).observe(messages, { childList: true, subtree: true, characterData: true });
  });
  await send(page, 'show me a table');
  await answered(page);
  await expect(page.getByTestId('answer-text').last().locator('table tbody tr')).toHaveCount(5);
  expect(await page.evaluate(() => (window as unknown as { rawPipes: string[] }).rawPipes)).toEqual([]);
});
