// Branching threads in a real browser: regenerate and edit keep the old versions, the
// `‹ 1/2 ›` arrows switch between them, and the whole tree survives a reload.
import { expect, test } from '@playwright/test';
import { answered, answers, lastAnswerText, send } from './helpers.ts';

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('regenerate keeps the old answer: ‹ 2/2 › switches back to it and forth again', async ({ page }) => {
  await send(page, 'first question');
  await answered(page);
  const first = await answers(page).last().getAttribute('data-message-id');
  await page.getByRole('button', { name: 'Regenerate', exact: true }).click();
  await expect(answers(page).last()).not.toHaveAttribute('data-message-id', first!);
  await answered(page);
  const second = await answers(page).last().getAttribute('data-message-id');
  const versions = answers(page).last().getByTestId('versions');
  await expect(versions).toContainText('2/2');
  await versions.getByRole('button', { name: 'Previous version' }).click();
  await expect(answers(page)).toHaveCount(1);
  await expect(answers(page).last()).toHaveAttribute('data-message-id', first!);
  await expect(answers(page).last().getByTestId('versions')).toContainText('1/2');
  await expect(answers(page).last().getByRole('button', { name: 'Previous version' })).toBeDisabled();
  await answers(page).last().getByRole('button', { name: 'Next version' }).click();
  await expect(answers(page).last()).toHaveAttribute('data-message-id', second!);
});

test('editing a user message sends the new text and keeps the old one with its answer, across a reload', async ({ page }) => {
  await send(page, 'the original question');
  await answered(page);
  await send(page, 'a follow-up');
  await answered(page);
  await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
  const editor = page.getByRole('textbox', { name: 'Edit message' });
  await expect(editor).toHaveValue('the original question');
  await editor.fill('the edited question');
  await page.getByRole('button', { name: 'Save & send' }).click();
  await answered(page);
  // The edit starts a new version of the conversation from that message on.
  await expect(page.getByTestId('user-message')).toHaveText(['the edited question']);
  await expect(lastAnswerText(page)).toContainText('You said: the edited question');
  const row = page.getByTestId('user-message-row').first();
  await expect(row.getByTestId('versions')).toContainText('2/2');
  await row.getByRole('button', { name: 'Previous version' }).click();
  await expect(page.getByTestId('user-message')).toHaveText(['the original question', 'a follow-up']);
  await expect(lastAnswerText(page)).toContainText('You said: a follow-up');
  // The whole tree is stored: after a reload the shown version and the arrows are back.
  await page.reload();
  await expect(page.getByTestId('user-message')).toHaveText(['the original question', 'a follow-up']);
  await expect(page.getByTestId('user-message-row').first().getByTestId('versions')).toContainText('1/2');
  await page.getByTestId('user-message-row').first().getByRole('button', { name: 'Next version' }).click();
  await expect(page.getByTestId('user-message')).toHaveText(['the edited question']);
  // A message sent now continues the version on screen, and only that path reaches the model.
  await send(page, 'and then?');
  await answered(page);
  await expect(page.getByTestId('user-message')).toHaveText(['the edited question', 'and then?']);
  await expect(lastAnswerText(page)).toContainText('You said: and then?');
});
