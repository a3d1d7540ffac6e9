// A tool from the demo MCP server (src/mcp/dice-server.ts, a child process over stdio that
// the demo server starts) used in the chat, in a real browser.
import { expect, test } from '@playwright/test';
import { DICE_TOOL } from '../src/server/mock-script.ts';

test('a tool from the demo MCP server runs in the chat', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('roll 2 dice');
  await box.press('Enter');
  const call = page.locator(`[data-testid="tool-call"][data-tool="${DICE_TOOL}"]`);
  await expect(call.locator('.tool-state')).toHaveText('done', { timeout: 20_000 });
  const output = JSON.parse((await call.getByTestId('tool-result').textContent()) ?? '{}') as { rolls: number[]; total: number; sides: number };
  expect(output.sides).toBe(6);
  expect(output.rolls).toHaveLength(2);
  const answer = page.getByTestId('assistant-message').last().getByTestId('answer-text').last();
  await expect(answer).toContainText(`You rolled ${output.rolls.join(', ')} (total ${output.total})`);
});
