// Issue #29, item 5: icons are inline SVG inside buttons with accessible names (emoji rendered as
// empty boxes without an emoji font), and the model picker shows the model's whole name at every
// width. Desktop and 390x844 phone (playwright.config.ts).
import { expect, test, type Locator, type Page } from '@playwright/test';
import { answered, send } from './helpers.ts';

/** On a phone the thread list is a drawer behind the "Threads" button. */
async function openThreads(page: Page) {
  if (!(await page.getByRole('navigation', { name: 'Threads' }).isVisible())) await page.getByRole('button', { name: 'Threads' }).click();
}

/** The element draws an SVG icon of real size and holds no text (so no glyph a font may lack). */
async function expectSvgIcon(target: Locator) {
  const svg = target.locator('svg');
  await expect(svg).toHaveCount(1);
  const box = await svg.boundingBox();
  expect(box!.width).toBeGreaterThan(8);
  expect(box!.height).toBeGreaterThan(8);
  expect((await target.textContent())?.trim()).toBe('');
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('the icon buttons are SVG with accessible names, and no emoji is on the page', async ({ page }) => {
  await send(page, 'what time is it');
  const tool = page.locator('[data-testid="tool-call"][data-tool="get_time"]');
  await expect(tool).toBeVisible();
  await answered(page);
  await expectSvgIcon(tool.locator('.tool-icon'));
  if (page.viewportSize()!.width < 700) await expectSvgIcon(page.getByRole('button', { name: 'Threads' }));
  await openThreads(page);
  const threads = page.getByRole('navigation', { name: 'Threads' });
  for (const action of ['Rename', 'Delete']) {
    const button = threads.getByRole('button', { name: new RegExp(`^${action} `) }).first();
    await expect(button).toBeVisible();
    await expectSvgIcon(button);
  }
  const text = await page.locator('body').innerText();
  expect(text).not.toMatch(/\p{Extended_Pictographic}/u);
});

test("the model picker shows the chosen model's whole name", async ({ page }) => {
  const picker = page.getByRole('combobox');
  const { label, textWidth, room } = await picker.evaluate((el: HTMLSelectElement) => {
    const style = getComputedStyle(el);
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = el.selectedOptions[0]?.textContent ?? '';
    // The room for the text: the box less its padding and the drop-down arrow (about 20 px).
    const room = el.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - 20;
    return { label: text, textWidth: context.measureText(text).width, room };
  });
  expect(label).toMatch(/^Demo model/);
  expect(textWidth).toBeLessThanOrEqual(room);
  const box = await picker.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(page.viewportSize()!.width);
});
