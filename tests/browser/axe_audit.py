"""Run axe-core (bundled by axe-playwright-python, offline) in a Playwright page, and describe what it finds."""

from __future__ import annotations

WCAG_AA_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_violations(page, context=None, tags=WCAG_AA_TAGS, rules=None):
    """axe's violations on the open page (or inside the elements matching the CSS selector ``context``), for the
    rules tagged with one of ``tags``, or for the rule ids ``rules`` when given."""
    from axe_playwright_python.base import AXE_SCRIPT

    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    run_only = {"type": "rule", "values": rules} if rules else {"type": "tag", "values": tags}
    if context and not page.locator(context).count():
        return []  # nothing to audit (axe refuses a context that matches no element)
    return page.evaluate(
        """([context, runOnly]) => axe.run(context ? {include: [[context]]} : document,
                                          {runOnly, resultTypes: ['violations']}).then(r => r.violations)""",
        [context, run_only])


def describe(violations):
    """One line per violation (rule id: count, help) and one per element (its target and axe's summary)."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {len(v['nodes'])} element(s): {v['help']}")
        for node in v["nodes"]:
            summary = " ".join(node.get("failureSummary", "").split())
            lines.append(f"    {' > '.join(map(str, node['target']))}: {summary}")
    return "\n".join(lines)
