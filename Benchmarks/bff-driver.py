#!/usr/bin/env python3
"""Load driver for Benchmarks/bff.sh: signs users in through a back end for front ends, and fires renewal storms.

  bff-driver.py seed N APP_URL IDS_FILE      N sign-ins through APP_URL (the emulator signs in without a form:
                                             --auto-sign-in), each a real /auth/login → /authorize → /auth/callback
                                             round trip with the binding cookie; writes the N session cookies.
  bff-driver.py storm IDS_FILE URL...        every user's GET /api/userinfo once on each URL, all at once
                                             (64 in flight); prints the wall time and the statuses.
Standard library only.
"""
import concurrent.futures
import http.client
import json
import sys
import time
import urllib.parse


def request(url, cookies=None):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    path = parts.path + ("?" + parts.query if parts.query else "")
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}
    if "/api/" in path:
        headers["X-CSRF"] = "1"  # every API call carries the anti-forgery header
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    set_cookies = {}
    for name, value in response.getheaders():
        if name.lower() == "set-cookie":
            pair = value.split(";", 1)[0]
            key, _, cookie = pair.partition("=")
            set_cookies[key] = cookie
    connection.close()
    return response.status, response.getheader("Location"), set_cookies, body


def sign_in(app):
    status, authorize, cookies, _ = request(app + "/auth/login")
    assert status == 303, f"login: {status}"
    status, callback, _, _ = request(authorize)
    assert status in (302, 303), f"authorize: {status} (start the emulator with --auto-sign-in)"
    status, _, set_cookies, _ = request(callback, cookies)
    assert status == 303 and set_cookies.get("sessionkit"), f"callback: {status}"
    return set_cookies["sessionkit"]


def seed(count, app, ids_file):
    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(lambda _: sign_in(app), range(count)))
    with open(ids_file, "w") as file:
        file.write("\n".join(ids) + "\n")
    print(f"seeded {len(set(ids))} sessions in {time.time() - started:.1f} s")


def storm(ids_file, urls):
    ids = [line.strip() for line in open(ids_file) if line.strip()]
    jobs = [(url, session) for session in ids for url in urls]
    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(64) as pool:
        statuses = list(pool.map(lambda job: request(job[0] + "/api/userinfo", {"sessionkit": job[1]})[0], jobs))
    elapsed = time.time() - started
    counts = {status: statuses.count(status) for status in sorted(set(statuses))}
    print(json.dumps({"requests": len(jobs), "users": len(ids), "seconds": round(elapsed, 2), "statuses": counts}))


if __name__ == "__main__":
    if sys.argv[1] == "seed":
        seed(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "storm":
        storm(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
