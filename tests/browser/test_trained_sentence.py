"""The trained-model explorer's sentence box, in JupyterLab in headless Chromium: typing a sentence and pressing
Enter runs it through the model in the kernel (a move the page cannot draw alone), and the heatmap (new tokens on its
axes), the readout and the caption change; "your own" is chosen in the page.

Run: python -m pytest tests/browser -q -k trained
"""

import lab_driver


def test_typing_a_sentence_redraws_the_heatmap_with_its_tokens(lab, page):
    lab_driver.open_and_run_explorer(page, lab, "trained")
    assert lab_driver.error_outputs(page) == []
    lab_driver.wait_for_figure(page, "trained")
    selector = lab_driver.explorer_selector("trained")
    lab_driver.wait_until_settled(page, "trained", quiet_ms=300)
    figure = page.evaluate("s => window.attnFigureSum(s)", selector)
    readout = page.evaluate("s => window.attnReadout(s)", selector)
    assert "tokens n: 12" in readout

    box = page.locator(f"{selector} input[type=text]")
    box.click()
    box.fill("a dog chased the ball")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "([sel, sum, text]) => window.attnFigureSum(sel) !== sum && window.attnReadout(sel) !== text",
        arg=[selector, figure, readout], timeout=30_000, polling=50)
    lab_driver.wait_until_settled(page, "trained", quiet_ms=300)
    assert "tokens n: 7" in page.evaluate("s => window.attnReadout(s)", selector)  # [CLS] + 5 words + [SEP]
    assert "a dog chased the ball" in page.locator(f"{selector} .attn-description").inner_text()
    assert page.locator(f"{selector} input[type=radio]:checked").evaluate("r => r.parentElement.textContent").strip() \
        .startswith("your own")
    assert page.locator(f"{selector} .attn-status").inner_text() == ""
    assert lab_driver.error_outputs(page) == []
    assert page.errors == []
