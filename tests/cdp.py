"""A headless Chromium driven over the DevTools protocol, with the standard library only.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol commands from
file descriptor 3 and writes answers and events to descriptor 4, each message a JSON
object followed by a NUL byte. :class:`Browser` opens one page and offers what the
docs and server tests need: set the window size, load a page and wait for it,
evaluate JavaScript, press a key, tap, and take a screenshot.

    with Browser(chromium, profile_dir) as browser:
        browser.load("http://127.0.0.1:8000/", width=390, height=800)
        print(browser.evaluate("document.title"))
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
"""Flags that work on a headless server (no sandbox, no GPU, no network besides the page)."""

KEY_CODES = {"ArrowLeft": 37, "ArrowRight": 39, "Home": 36, "End": 35, "Escape": 27, "Enter": 13}


NAVIGATED = ("Inspected target navigated or closed", "Execution context was destroyed")
"""What Chromium answers to an evaluation that the page's navigation interrupted."""


class BrowserError(RuntimeError):
    """Chromium answered a command with an error, or did not answer in time."""


def _high_fd(fd: int) -> int:
    """A copy of ``fd`` numbered 10 or higher (so that the child can take 3 and 4)."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class Browser:
    """One headless Chromium with one page; use it as a context manager."""

    def __init__(self, executable: str, profile: Path, *, timeout: float = 60.0) -> None:
        self.timeout = timeout
        to_child_read, self._to_child = (_high_fd(fd) for fd in os.pipe())
        self._from_child, from_child_write = (_high_fd(fd) for fd in os.pipe())

        def take_pipes() -> None:
            os.dup2(to_child_read, 3)
            os.dup2(from_child_write, 4)

        self._process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=take_pipes,  # (no threads run yet in the tests that use this)
        )
        os.close(to_child_read)
        os.close(from_child_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.requested: list[str] = []
        """Every address the page requested since ``Network.enable`` (its frames too)."""
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        self.send("Page.enable")
        self.send("Runtime.enable")

    # ----------------------------------------------------------------- protocol

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer in time")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 16)
                if not chunk:
                    raise BrowserError("chromium closed the protocol pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        if message.get("method") == "Network.requestWillBeSent":
            self.requested.append(message["params"]["request"]["url"])
        return message

    def _call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            if "method" in answer:
                self.events.append(answer)

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command to the page and return its result."""
        return self._call(method, params, self._session)

    def wait_for_event(self, method: str) -> dict[str, Any]:
        """Wait for the next event ``method`` of the page (events seen earlier count)."""
        deadline = time.monotonic() + self.timeout
        while True:
            for k, event in enumerate(self.events):
                if event.get("method") == method:
                    del self.events[: k + 1]
                    return event
            self.events.append(self._read_message(deadline))

    # -------------------------------------------------------------------- pages

    def resize(self, width: int, height: int) -> None:
        """Set the window (the layout viewport) to ``width`` x ``height`` CSS pixels."""
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
        )

    def load(self, url: str, *, width: int = 1280, height: int = 900) -> None:
        """Open ``url`` in a window of that size and wait until it and its script ran."""
        self.resize(width, height)
        self.events.clear()
        if "loaderId" not in self.send("Page.navigate", {"url": url}):
            # The same page with another #fragment: nothing loads. Load it afresh.
            self.send("Page.navigate", {"url": "about:blank"})
            self.wait_for_event("Page.loadEventFired")
            self.send("Page.navigate", {"url": url})
        self.wait_for_event("Page.loadEventFired")
        self.wait_until("document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises are awaited)."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_until(self, condition: str, timeout: float = 10.0) -> None:
        """Poll until the JavaScript ``condition`` is true.

        A poll that the page's own navigation cut short (the page went to another
        address meanwhile) is asked again of the new page.
        """
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.evaluate(f"Boolean({condition})"):
                    return
            except BrowserError as error:
                if not any(cut in str(error) for cut in NAVIGATED):
                    raise
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {condition}")
            time.sleep(0.05)

    def enable_touch(self) -> None:
        """Let the page see a touch screen (``ontouchstart``, taps) from now on."""
        self.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})

    def tap(self, x: float, y: float) -> None:
        """A finger's tap (touch start and end) at ``x``, ``y`` (CSS pixels in the window)."""
        self.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}
        )
        self.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def press(self, key: str) -> None:
        """Press and release one key, as a user would, on the focused element."""
        code = KEY_CODES[key]
        for kind in ("keyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent",
                {"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code},
            )

    def screenshot(self, path: Path, *, full_page: bool = False) -> None:
        """Save the window (or the whole page) as a PNG file."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))

    # ---------------------------------------------------------------- lifecycle

    def close(self) -> None:
        """Stop Chromium."""
        with contextlib.suppress(BrowserError, OSError):
            self._call("Browser.close")
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def find_chromium() -> str | None:
    """The path of a Chromium on this machine, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def require_chromium() -> str:
    """Chromium's path; skips the calling test module when there is none.

    With ``ALLEGRA_REQUIRE_BROWSER=1`` (as in CI) a missing Chromium is an error instead.
    """
    import pytest

    found = find_chromium()
    if found is None:
        if os.environ.get("ALLEGRA_REQUIRE_BROWSER") == "1":
            raise RuntimeError("ALLEGRA_REQUIRE_BROWSER=1 but chromium is not installed")
        pytest.skip("chromium is not installed", allow_module_level=True)
    return found


def save_screenshot(browser: Browser, name: str) -> None:
    """Save a screenshot named ``name`` when ``ALLEGRA_SCREENSHOTS`` names a folder."""
    folder = os.environ.get("ALLEGRA_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        browser.screenshot(Path(folder) / f"{name}.png", full_page=True)
