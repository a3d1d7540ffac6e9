// Issue #29 ("beyond a demo"): a thread exports as Markdown (to read) and JSON (the whole thread,
// to keep), as it is saved: tool calls and results included.
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { answered, answers, send } from './helpers.ts';

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

async function exportAs(page: Page, name: string): Promise<{ file: string; text: string }> {
  await page.locator('.export-menu > summary').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
  return { file: download.suggestedFilename(), text: await readFile((await download.path())!, 'utf8') };
}

test('a new chat has nothing to export; a thread exports as Markdown and as JSON', async ({ page }) => {
  await expect(page.locator('.export-menu')).toHaveCount(0);
  await send(page, 'what time is it');
  await answered(page);
  await expect(answers(page).last().getByTestId('usage')).toBeVisible();

  const md = await exportAs(page, 'Markdown (.md)');
  expect(md.file).toBe('what-time-is-it.md');
  expect(md.text).toMatch(/^# what time is it\n\n## You\n\nwhat time is it\n\n## Assistant \(demo:mock\)\n\n[^#]*Tool call `get_time`:/);
  expect(md.text).toContain('Result of `get_time`:');
  expect(md.text).toMatch(/The time in UTC is \*\*\d\d:\d\d:\d\d\*\*/);
  expect(md.text).toMatch(/\*\d+ in · \d+ out · \$/);

  const json = await exportAs(page, 'JSON (.json)');
  expect(json.file).toBe('what-time-is-it.json');
  const parsed = JSON.parse(json.text) as { title: string; thread: { id: string; messages: { role: string }[] } };
  expect(parsed.title).toBe('what time is it');
  expect(page.url()).toContain(parsed.thread.id);
  expect(parsed.thread.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
});
