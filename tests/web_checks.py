"""Checks of the web table that several Chromium tests share: controls hidden under something
when focused (WCAG 2.4.11), and axe-core's audit of the page as it stands.

axe-core (MPL-2.0) is vendored in ``tests/vendor/axe.min.js`` (from the npm registry, for
tests only): tests never install anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).with_name("vendor") / "axe.min.js"

#: What fails an audit: axe's two worst impacts.
SERIOUS = ("serious", "critical")

_COVERED = """(selector) => {
    const covered = [];
    const name = (node) => node.id || node.name || node.tagName;
    for (const node of document.querySelectorAll(selector)) {
        if (node.offsetParent === null || node.disabled) continue;
        // Folded away (« plus d'options » closed): Tab does not reach it.
        const folded = node.closest('details:not([open])');
        if (folded && node.tagName !== 'SUMMARY' && !node.closest('summary')) continue;
        node.focus();
        const box = node.getBoundingClientRect();
        // Part of a tall field may be past the screen's edge (the browser scrolls only until
        // it shows): what is on the screen must be the control itself.
        const points = [[box.left + box.width / 2, box.top + 2],
                        [box.left + box.width / 2, box.bottom - 2]]
            .filter(([, y]) => y >= 0 && y < window.innerHeight);
        if (!points.length) covered.push(`${name(node)} (off screen)`);
        for (const [x, y] of points) {
            const top = document.elementFromPoint(x, y);
            const labels = node.labels ? [...node.labels] : [];
            const own = top && (top === node || node.contains(top) || top.contains(node)
                                || labels.some((label) => label.contains(top)));
            if (!own) {
                covered.push(`${name(node)} (${top ? top.className || top.tagName : "?"})`);
                break;
            }
        }
    }
    return covered;
}"""


def covered_controls(page: Any, selector: str) -> list[str]:
    """Each control of ``selector`` focused in turn (as Tab would): those the browser leaves
    hidden under something else (a sticky panel), as ``id (what covers it)``."""
    return page.page.evaluate(_COVERED, selector)


def axe_violations(page: Any, *, impacts: tuple[str, ...] = SERIOUS) -> list[str]:
    """axe-core's audit of the page as it stands (WCAG 2.x A/AA, 2.2 AA and best practices):
    the violations of ``impacts``, each as ``rule (impact): target…``."""
    # A line arriving in the log fades in: axe would measure its colours half-way.
    page.page.emulate_media(reduced_motion="reduce")
    page.page.wait_for_function("() => document.getAnimations().every("
                                "(a) => a.playState !== 'running')")
    if not page.page.evaluate("() => typeof window.axe === 'object'"):
        # Evaluated by the browser's debugger protocol: the page's CSP (script-src 'self')
        # refuses an inline script tag, and rightly so.
        page.page.evaluate(AXE.read_text(encoding="utf-8") + "\n;true")
    result = page.page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return result.violations.map((v) => ({id: v.id, impact: v.impact,
            targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5)}));
    }""")
    return [f"{v['id']} ({v['impact']}): {', '.join(v['targets'])}" for v in result
            if v["impact"] in impacts]
