#!/usr/bin/env python3
"""Signs in through a back end for front ends with headless Chromium, as a person would, and takes a screenshot.

Usage: scripts/chromium-sign-in.py APP_URL EMAIL PASSWORD SCREENSHOT.png

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: file descriptors 3 and 4,
messages separated by NUL), so nothing but the Python standard library is needed. The steps: open APP_URL, follow
its "Sign in" link, type the email and password into the identity provider's form, press Continue, and wait until
the app's page says "Signed in as"; take the screenshot; then press "Sign out" (the app ends its session and sends the
browser to the provider's logout, which sends it back), wait for "Not signed in.", follow "Sign in" again and check
that the provider asks for the password again. Prints one JSON line: {"signed_in_text", "api_text", "url",
"signed_out_text", "asked_again"}. Exits 1 on failure.
"""
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="sessionkit-chromium-")
        to_chrome_r, self.to_chrome_w = os.pipe()
        self.from_chrome_r, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4. The child's ends are moved above 9 first, so
        # that putting them on 3 and 4 cannot overwrite one with the other.
        to_chrome_r = self.move_high(to_chrome_r)
        from_chrome_w = self.move_high(from_chrome_w)

        def child_fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if binary is None:
            sys.exit("chromium is not on PATH")
        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--remote-debugging-pipe", "--window-size=900,700", f"--user-data-dir={self.profile}"],
            pass_fds=(3, 4, to_chrome_r, from_chrome_w), preexec_fn=child_fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None

    @staticmethod
    def move_high(fd):
        high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
        os.close(fd)
        return high

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome_w, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_chrome_r, 65536)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result.get("result", {}).get("value")

    def wait_for(self, expression, what, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError:
                value = None  # the page is navigating
            if value:
                return value
            time.sleep(0.1)
        raise RuntimeError(f"timed out waiting for {what}; the page shows: {self.evaluate('document.body && document.body.innerText')!r}")

    def type_into(self, selector, text):
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", {"text": text})

    def close(self):
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    app_url, email, password, screenshot = sys.argv[1:5]
    browser = Browser()
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        browser.session = browser.send(
            "Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        browser.send("Page.enable")
        browser.send("Page.navigate", {"url": app_url})
        browser.wait_for("document.querySelector('a[href=\"/auth/login\"]') !== null", "the app's Sign in link")
        browser.evaluate("document.querySelector('a[href=\"/auth/login\"]').click()")
        browser.wait_for("document.querySelector('input[name=username]') !== null", "the provider's sign-in form")
        browser.type_into("input[name=username]", email)
        browser.type_into("input[name=password]", password)
        browser.evaluate("document.querySelector('button[type=submit]:not([name])').click()")
        signed_in = browser.wait_for(
            "(document.getElementById('signed-in') || {}).textContent", "the app's 'Signed in as' line")
        api = browser.wait_for(
            "(t => t !== '-' && t)(document.getElementById('api').textContent)", "the API call's answer")
        time.sleep(0.3)
        shot = browser.send("Page.captureScreenshot", {"format": "png"})
        with open(screenshot, "wb") as file:
            file.write(base64.b64decode(shot["data"]))
        url = browser.evaluate("location.href")
        browser.evaluate("document.getElementById('logout').click()")
        signed_out = browser.wait_for(
            "(t => t === 'Not signed in.' && t)((document.getElementById('who') || {}).textContent)",
            "the app's 'Not signed in.' line after signing out", timeout=30)
        browser.wait_for("document.querySelector('a[href=\"/auth/login\"]') !== null", "the Sign in link again")
        browser.evaluate("document.querySelector('a[href=\"/auth/login\"]').click()")
        asked_again = browser.wait_for(
            "document.querySelector('input[name=password]') !== null || "
            "(document.getElementById('signed-in') ? 'signed straight back in' : false)",
            "the provider's form (or the app, if the provider still remembered the user)")
        print(json.dumps({"signed_in_text": signed_in, "api_text": api, "url": url, "signed_out_text": signed_out,
                          "asked_again": asked_again is True}))
    finally:
        browser.close()


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # one line for the test's failure message
        print(json.dumps({"error": str(error)}))
        sys.exit(1)
