// What every admin console page must pass in a real Chromium, as a person would meet it: a screenshot
// at 1440 and at 1024 px written as an artifact (test-artifacts/console/<name>-<width>.png, kept by CI
// for a reviewer to look at), no horizontal scroll of the page itself at either width, and axe-core's
// WCAG 2 A/AA rules with no serious or critical violation. axe runs through page.evaluate, which the
// page's CSP does not govern, so the check needs no change to the page's policy.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
const WIDTHS = [1440, 1024] as const;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

const axeSource = (): string => {
  const require = createRequire(import.meta.url);
  return (require('axe-core') as { source: string }).source;
};

/** The serious and critical WCAG A/AA violations on the page as it is now, one line each. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(axeSource());
  const violations = (await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is the global the evaluated source defined
    const axe = (globalThis as any).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
    );
}

/**
 * Screenshots at both widths, the page's own width within the window, and the accessibility check.
 * Returns the problems found (empty when the page passes), so a test can `expect(...).toEqual([])`
 * and see every problem at once.
 */
export async function checkConsolePage(page: Page, name: string): Promise<string[]> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const problems: string[] = [];
  const original = page.viewportSize();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 1) problems.push(`${name} at ${width} px: the page scrolls sideways by ${overflow} px`);
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
  problems.push(...(await accessibilityProblems(page)).map((p) => `${name}: ${p}`));
  return problems;
}
