"""Drive the dashboard in headless Chromium (Debian's chromium + chromium-driver, through Selenium).

Used by the browser tests (tests/ui/test_dashboard_browser.py) and by docs/screenshots.py. Nothing is
downloaded: Selenium is pointed at /usr/bin/chromium and /usr/bin/chromedriver (or CHROMIUM,
CHROMEDRIVER), so its driver manager never runs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars")


def missing() -> str | None:
    """Why a browser cannot start here, or None."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            return f"{path} not found: install Debian's chromium and chromium-driver (`make system-packages` as root)"
    return None


class Browser:
    """One headless Chromium with a fresh profile and a download folder; ``quit()`` removes both."""

    def __init__(self, width: int = 1500, height: int = 1200):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile = tempfile.mkdtemp(prefix="nvsim-chromium-")
        self.downloads = Path(tempfile.mkdtemp(prefix="nvsim-downloads-"))
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.profile}")
        options.add_argument(f"--window-size={width},{height}")
        options.add_experimental_option("prefs", {"download.default_directory": str(self.downloads),
                                                  "download.prompt_for_download": False})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(self.downloads)})

    # -- waiting and reading -------------------------------------------------------------------
    def wait(self, condition: Callable[[], object], timeout_s: float = 20.0, what: str = "condition") -> object:
        """Poll ``condition`` until it returns something truthy (exceptions count as not yet)."""
        deadline = time.monotonic() + timeout_s
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            try:
                value = condition()
                if value:
                    return value
            except Exception as exc:  # element not there yet, stale after a re-render
                last_error = exc
            time.sleep(0.1)
        raise TimeoutError(f"timed out after {timeout_s} s waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))

    def element(self, element_id: str):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.ID, element_id)

    def text(self, element_id: str) -> str:
        return self.element(element_id).text

    def value(self, element_id: str) -> float | None:
        """The raw number a result card carries in its data-value attribute (None when n/a)."""
        raw = self.element(element_id).get_attribute("data-value")
        return float(raw) if raw not in (None, "", "None") else None

    def wait_value(self, element_id: str, predicate: Callable[[float], bool] = lambda v: True, timeout_s: float = 20.0) -> float:
        def ready():
            value = self.value(element_id)
            return value is not None and predicate(value) and (value,)
        return self.wait(ready, timeout_s, f"#{element_id} value")[0]

    # -- acting --------------------------------------------------------------------------------
    def open(self, url: str) -> None:
        self.driver.get(url)
        self.wait(lambda: self.value("m-iops") is not None, 30, "the first results")

    def type_into(self, element_id: str, text: str) -> None:
        """Replace an input's text as a user does (select all, type), then leave the field."""
        from selenium.webdriver.common.keys import Keys
        box = self.element(element_id)
        box.click()
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(text)
        box.send_keys(Keys.TAB)

    def choose_radio(self, element_id: str, value: str) -> None:
        from selenium.webdriver.common.by import By
        self.element(element_id).find_element(By.CSS_SELECTOR, f"input[value='{value}']").click()

    def choose_option(self, element_id: str, value: object) -> None:
        """Open a dcc.Dropdown and click the option with ``value``."""
        from selenium.webdriver.common.by import By
        self.element(element_id).click()
        option = self.wait(lambda: self.driver.find_element(
            By.CSS_SELECTOR, f".dash-dropdown-option input[value='{value}']"), 5, f"option {value!r} of #{element_id}")
        option.find_element(By.XPATH, "./ancestor::label").click()
        try:
            self.wait(lambda: self.element(element_id).get_attribute("aria-expanded") == "false", 2, "the list to close")
        except TimeoutError:  # choosing the value it already has leaves the list open
            from selenium.webdriver.common.keys import Keys
            self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
            self.wait(lambda: self.element(element_id).get_attribute("aria-expanded") == "false", 5, f"#{element_id} to close")

    def click(self, element_id: str) -> None:
        self.element(element_id).click()

    def upload(self, element_id: str, path: str | Path) -> None:
        from selenium.webdriver.common.by import By
        self.element(element_id).find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(path))

    def downloaded(self, suffix: str, timeout_s: float = 20.0, after: set[str] | None = None) -> Path:
        """The newest finished download ending in ``suffix`` (not one of ``after``)."""
        def done():
            found = [p for p in self.downloads.iterdir() if p.name.endswith(suffix) and p.name not in (after or set())]
            return found and max(found, key=lambda p: p.stat().st_mtime)
        return self.wait(done, timeout_s, f"a downloaded *{suffix}")

    def screenshot(self, path: str | Path, full_page: bool = False) -> Path:
        """A PNG of the window (full_page: the window grown to the page's height first)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if full_page:
            size = self.driver.get_window_size()
            height = 0
            for _ in range(4):  # charts re-lay out to the new size, which can change the height again
                now = self.driver.execute_script("return document.documentElement.scrollHeight")
                if now <= height:
                    break
                height = now
                self.driver.set_window_size(size["width"], height + 120)
                time.sleep(0.7)
            self.driver.save_screenshot(str(path))
            self.driver.set_window_size(size["width"], size["height"])
        else:
            self.driver.save_screenshot(str(path))
        return path

    def external_requests(self, base_url: str) -> list[str]:
        """Resources the page fetched from anywhere but the dashboard's own server."""
        names = self.driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        return [n for n in names if not n.startswith(base_url) and not n.startswith("data:")]

    def quit(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)
            shutil.rmtree(self.downloads, ignore_errors=True)
