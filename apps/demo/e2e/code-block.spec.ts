// Issue #29 ("beyond a demo"): a code block has a Copy button that copies exactly its code, and
// syntax highlighting from a highlighter loaded only when a block with a language first shows.
import { expect, test } from '@playwright/test';
import { answered, send } from './helpers.ts';

test.beforeEach(async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('a code block is highlighted by a lazily loaded highlighter and copies its code', async ({ page }) => {
  const highlighter: string[] = [];
  page.on('request', (request) => {
    if (/\/assets\/highlight-[^/]*\.js$/.test(request.url())) highlighter.push(request.url());
  });
  // A plain answer loads no highlighter.
  await send(page, 'hi');
  await answered(page);
  expect(highlighter).toEqual([]);

  await send(page, 'show me some code');
  await answered(page);
  const block = page.getByTestId('code-block').last();
  await expect(block).toHaveAttribute('data-language', 'ts');
  const code = block.locator('code[data-highlighted="yes"]');
  // The chunk loads on demand; a busy machine may take a while (a bound, not a timing check).
  await expect(code.locator('.hljs-keyword').first()).toHaveText('function', { timeout: 20_000 });
  expect(highlighter).toHaveLength(1);

  await block.getByRole('button', { name: 'Copy code' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/^function greet\(name: string\): string \{\n {2}return `Hello, \$\{name\}!.*`;\n\}$/);
  // The table in the same answer is no code block.
  await expect(page.getByTestId('code-block')).toHaveCount(1);
});
