"""The web page in a real headless Chromium (Debian's chromium and chromium-driver, which .ci/run installs):
a person types text, submits it, and sees both trees, one arc per word each."""

from __future__ import annotations

import shutil
import socket
import threading
import time

import pytest
import uvicorn

from hetdep.service.app import Limits, create_app

CHROMEDRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(CHROMEDRIVER is None or shutil.which("chromium") is None,
                                    reason="Debian's chromium and chromium-driver are not installed (.ci/run installs them)")


@needs_chromium
def test_typing_text_shows_both_trees(pipeline_model, tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium drives the browser (test dependency)")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app({"joint": str(pipeline_model)}, Limits()), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1600,1000"):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        browser.get(f"http://127.0.0.1:{port}/")
        browser.find_element(By.ID, "data").send_keys("Le ministre parle du budget au public.")
        browser.find_element(By.ID, "parse").click()
        # The first parse may load or compile the search (a cold numba cache): wait for the answer.
        WebDriverWait(browser, 120).until(lambda page: page.find_elements(By.CSS_SELECTOR, "figure svg"))
        figures = browser.find_elements(By.CSS_SELECTOR, "figure svg")
        assert len(figures) == 1
        words = figures[0].find_elements(By.CSS_SELECTOR, "text.word")
        arcs = figures[0].find_elements(By.CSS_SELECTOR, "path.arc")
        assert [w.text for w in words][:6] == ["Le", "ministre", "parle", "de", "le", "budget"]
        assert len(arcs) == 2 * len(words)  # one arc per word in each scheme
        assert browser.find_element(By.ID, "download-sud").get_attribute("href").startswith("data:text/plain")
        browser.save_screenshot(str(tmp_path / "page.png"))
        assert (tmp_path / "page.png").stat().st_size > 10_000
    finally:
        browser.quit()
        server.should_exit = True
        thread.join(10)
