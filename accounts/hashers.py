"""The password hasher: Django's pbkdf2_sha256, at Django's iteration count, computed about twice as fast.

A sign-in is one PBKDF2 (the stored hash checked, or a dummy hash for an unknown account), and it
was nearly all of the sign-in's time: hashlib's ``pbkdf2_hmac`` runs on the system's OpenSSL 3.0,
whose HMAC goes through the provider layer on every one of the 1,000,000 iterations. The
``cryptography`` package (a dependency already, for stored secrets) ships a newer OpenSSL that
computes the same function in about half the time (bench/README.md, "Sign-in").

Nothing about the stored hash changes: same algorithm name, same iterations, same salt and
encoding, so hashes made before verify here, hashes made here verify with Django's own hasher,
and Django's upgrade rules (``must_update``, ``harden_runtime``) apply as before. Only the speed
of the defender's computation changes, not the attacker's cost per guess.
"""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC
from django.contrib.auth.hashers import PBKDF2PasswordHasher


class PBKDF2SHA256Hasher(PBKDF2PasswordHasher):
    """``pbkdf2_sha256`` as Django defines it (``PBKDF2PasswordHasher``), derived by cryptography's OpenSSL."""

    def encode(self, password: str, salt: str, iterations: int | None = None) -> str:
        self._check_encode_args(password, salt)
        iterations = iterations or self.iterations
        derived = PBKDF2HMAC(
            algorithm=SHA256(), length=SHA256.digest_size, salt=salt.encode(), iterations=iterations
        ).derive(password.encode())
        encoded = base64.b64encode(derived).decode("ascii").strip()
        return f"{self.algorithm}${iterations}${salt}${encoded}"
