"""A cheaper PBKDF2 for the fixture user's password.

Django's default (PBKDF2-SHA256, 1,000,000 iterations) costs about half a second of CPU per sign-in; the
interop tests sign in dozens of times in parallel on a 2-core CI machine, and requests queued behind the
hashing timed out. Still PBKDF2-SHA256, still salted; only the work factor is lower, which is right for a
loopback test fixture whose password is public anyway. Never use these settings for real accounts.
"""
from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FixturePBKDF2PasswordHasher(PBKDF2PasswordHasher):
    algorithm = "pbkdf2_sha256_fixture"
    iterations = 10_000
