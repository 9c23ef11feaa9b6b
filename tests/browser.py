"""A headless Chromium driven over the Chrome DevTools Protocol (a websocket to 127.0.0.1), for the
tests of pages puzzlesat writes. No network: the browser starts with every background service
off, and pages are loaded as file:// URLs.

    with Browser(tmp_path) as b:
        b.open(path)                 # waits for the load event
        b.eval("document.title")     # a JavaScript expression's value
        b.errors                     # console errors and uncaught exceptions so far
        b.screenshot(png_path)
"""
from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0"]


def chromium() -> str | None:
    """The Chromium (or Chrome) program on PATH, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    """One headless Chromium with one page, driven over CDP."""

    def __init__(self, tmp: Path, width: int = 1400, height: int = 1000, timeout: float = 60.0):
        import websocket  # websocket-client
        self.timeout = timeout
        profile = Path(tmp) / "chromium-profile"
        profile.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([chromium(), *FLAGS, f"--user-data-dir={profile}",
                                      f"--window-size={width},{height}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"chromium did not start (exit code {self.proc.returncode})")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        pages = []
        while not pages and time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as f:
                pages = [p for p in json.load(f) if p.get("type") == "page"]
            time.sleep(0.05)
        if not pages:
            self.close()
            raise RuntimeError("chromium shows no page")
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=timeout,
                                              suppress_origin=True)
        self.next_id = 0
        self.events: list[dict] = []
        self.errors: list[str] = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def _event(self, msg: dict) -> None:
        self.events.append(msg)
        m, p = msg.get("method"), msg.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                       for a in p.get("args", [])))
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            self.errors.append("log: " + p["entry"].get("text", ""))

    def call(self, method: str, **params: Any) -> dict:
        """Send a CDP command and return its result (events meanwhile are kept)."""
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    def wait_event(self, method: str, since: int = 0) -> dict:
        """The first event `method` after index `since` of the events seen (waits for it)."""
        deadline = time.monotonic() + self.timeout
        while True:
            for m in self.events[since:]:
                if m.get("method") == method:
                    return m
            if time.monotonic() > deadline:
                raise TimeoutError(method)
            self._event(json.loads(self.ws.recv()))

    def open(self, path: Path) -> None:
        """Load a local file and wait for its load event."""
        since = len(self.events)
        self.call("Page.navigate", url=Path(path).resolve().as_uri())
        self.wait_event("Page.loadEventFired", since)

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression!r}: {r['exceptionDetails'].get('exception', {}).get('description')}")
        return r["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> bytes:
        """A PNG of the page (the viewport, or the whole page), written to `path`."""
        png = base64.b64decode(self.call("Page.captureScreenshot", format="png",
                                         captureBeyondViewport=full_page)["data"])
        Path(path).write_bytes(png)
        return png
