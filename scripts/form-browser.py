#!/usr/bin/env python3
"""A browser for tests, given as $BROWSER: opens the URL it is given, fills the emulator's sign-in form with
FORM_BROWSER_USER and FORM_BROWSER_PASSWORD, and follows the redirects back to the application (a loopback
redirect listener). Writes the final page to FORM_BROWSER_PAGE when that is set; then, with FORM_BROWSER_THEN set to
a URL, fetches it with the cookies of the sign-in and the anti-forgery header a back end for front ends asks for
(`X-CSRF: 1`), as the page's own script would, and appends what it answered. Standard library only."""
import html.parser
import http.cookiejar
import os
import sys
import urllib.parse
import urllib.request


class Fields(html.parser.HTMLParser):
    """The hidden inputs of the page's form."""

    def __init__(self):
        super().__init__()
        self.fields = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("type") == "hidden":
            self.fields.append((attrs.get("name", ""), attrs.get("value", "")))


def main():
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with opener.open(sys.argv[1], timeout=30) as response:
        form_url, page = response.geturl(), response.read().decode()
    if "<form" in page:
        parser = Fields()
        parser.feed(page)
        fields = parser.fields + [
            ("username", os.environ["FORM_BROWSER_USER"]),
            ("password", os.environ["FORM_BROWSER_PASSWORD"]),
        ]
        action = urllib.parse.urljoin(form_url, "/u/login")
        with opener.open(action, data=urllib.parse.urlencode(fields).encode(), timeout=60) as response:
            page = response.read().decode()
    then = os.environ.get("FORM_BROWSER_THEN")
    if then:
        request = urllib.request.Request(then, headers={"X-CSRF": "1"})
        with opener.open(request, timeout=30) as response:
            page += "\n" + response.read().decode()
    if os.environ.get("FORM_BROWSER_PAGE"):
        with open(os.environ["FORM_BROWSER_PAGE"], "w") as out:
            out.write(page)


if __name__ == "__main__":
    main()
