"""Fixtures shared by several test files."""

from __future__ import annotations

import pytest


@pytest.fixture
def browser():
    """Headless Chromium for the browser tests (tests/test_web_browser*.py), quit after the test. Imported here, not
    at the top: test_web_browser skips its module where chromium, chromedriver or selenium are missing."""
    from test_web_browser import open_chromium

    drv = open_chromium()
    try:
        yield drv
    finally:
        drv.quit()
