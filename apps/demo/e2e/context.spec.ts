// A thread that outgrows the model's context window keeps working: on the mock model with a
// 1.5k-token window, the engine summarizes older turns; the summary shows where it was made,
// and every earlier message stays on screen.
import { expect, test } from '@playwright/test';
import { answered, answers, send } from './helpers.ts';

test('a long thread on a small-window model is summarized and keeps answering', async ({ page }) => {
  test.setTimeout(150_000);
  await page.goto('/');
  await page.getByRole('combobox').selectOption('demo:mock-small');
  await expect(page.getByRole('combobox').locator('option:checked')).toContainText('1.5k context');
  // "code" and "table" get the mock's longest quick answers: a few of them fill 1.5k tokens.
  const questions = Array.from({ length: 7 }, (_, i) => (i % 2 ? `a table please (${i + 1})` : `code please (${i + 1})`));
  for (const q of questions) {
    await send(page, q);
    await answered(page);
  }
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(answers(page)).toHaveCount(questions.length);
  await expect(page.getByTestId('user-message')).toHaveCount(questions.length);
  const summary = page.getByTestId('summary').last();
  await expect(summary).toContainText('summarized to fit');
  await summary.locator('summary').click();
  await expect(summary).toContainText('"code please (1)"');
  // The thread with its summary survives a reload, and the next answer still comes.
  await page.reload();
  await expect(page.getByTestId('summary').first()).toBeVisible();
  await send(page, 'thanks');
  await answered(page);
  await expect(answers(page)).toHaveCount(questions.length + 1);
  await expect(page.getByRole('alert')).toHaveCount(0);
});
