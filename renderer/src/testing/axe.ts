import axe from 'axe-core'

/**
 * Runs axe-core on the rendered DOM (happy-dom in component tests) and returns its critical
 * and serious violations as readable lines ("rule: html"), so a failing assertion says what
 * to fix. happy-dom has no layout, so rules that need one (colour contrast, scrollable
 * regions) are checked by the browser tests (e2e/screens/a11y.e2e.test.ts) instead.
 */
export async function seriousA11yViolations(root: Element = document.body): Promise<string[]> {
  const r = await axe.run(root, {
    resultTypes: ['violations'],
    rules: { 'color-contrast': { enabled: false }, 'label-content-name-mismatch': { enabled: true } },
  })
  return r.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .flatMap((v) =>
      v.nodes.map((n) => `${v.id} (${v.impact}): ${n.html.slice(0, 160)} — ${n.failureSummary?.split('\n').slice(1).join(' ') ?? ''}`),
    )
}
