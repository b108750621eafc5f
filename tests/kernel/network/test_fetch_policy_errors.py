"""FetchPolicy validation and the error hierarchy (messages, reason codes, pickling)."""

from __future__ import annotations

import pickle

import pytest

from kernel.network import (
    DEFAULT_USER_AGENT,
    BackoffPolicy,
    Blocked,
    BlockedByRobots,
    DisallowedHost,
    FetchError,
    FetchPolicy,
    HttpStatusError,
    RetriesExhausted,
    RetryAfterTooLong,
    SsrfRefused,
    TooLarge,
)

URL = "https://www.evergabe.example/search?q=bau"


def test_default_user_agent_has_contact() -> None:
    policy = FetchPolicy()
    assert policy.user_agent == DEFAULT_USER_AGENT
    assert "mailto:" in policy.user_agent and "https://" in policy.user_agent
    assert policy.robots_token == "TenderRadar"


def test_user_agent_without_contact_is_rejected() -> None:
    with pytest.raises(ValueError, match="contact"):
        FetchPolicy(user_agent="TenderRadar/1.0")


def test_allowed_hosts_are_normalised_and_must_not_be_a_string() -> None:
    policy = FetchPolicy(allowed_hosts=frozenset({"WWW.Example.DE.", "[::1]"}))
    assert policy.allowed_hosts == frozenset({"www.example.de", "::1"})
    assert policy.host_allowed("www.example.de")
    with pytest.raises(TypeError):
        FetchPolicy(allowed_hosts="www.example.de")  # type: ignore[arg-type]


@pytest.mark.parametrize("field", ["timeout_seconds", "max_body_bytes"])
def test_positive_fields(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        FetchPolicy(**{field: 0})  # type: ignore[arg-type]


def test_retries_come_from_a_backoff_policy() -> None:
    with pytest.raises(ValueError):
        FetchPolicy(backoff=BackoffPolicy(base_seconds=1.0, cap_seconds=4.0, max_attempts=0))
    with pytest.raises(TypeError):
        FetchPolicy(backoff={"base_seconds": 1.0, "cap_seconds": 4.0, "max_attempts": 2})  # type: ignore[arg-type]
    assert FetchPolicy().max_retries == 3


ERRORS: list[tuple[FetchError, str]] = [
    (BlockedByRobots(URL, robots_url="https://www.evergabe.example/robots.txt", detail="disallowed"), "robots"),
    (DisallowedHost(URL, host="www.evergabe.example", detail="not allowed"), "disallowed_host"),
    (SsrfRefused(URL, host="www.evergabe.example", address="10.0.0.1", category="private"), "ssrf"),
    (TooLarge(URL, limit=10, declared=20), "too_large"),
    (HttpStatusError(URL, 404), "http_404"),
    (RetryAfterTooLong(URL, status=429, retry_after=3600, limit=300), "retry_after_too_long"),
    (RetriesExhausted(URL, attempts=4, last_status=500, last_error=None), "retries_exhausted"),
    (Blocked(URL, "login"), "blocked"),
]


@pytest.mark.parametrize(("error", "reason"), ERRORS, ids=[r for _e, r in ERRORS])
def test_errors_have_reason_url_in_message_and_pickle(error: FetchError, reason: str) -> None:
    assert isinstance(error, FetchError)
    assert error.reason == reason
    assert URL in str(error)
    clone = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
    assert type(clone) is type(error)
    assert (str(clone), clone.reason, clone.url) == (str(error), error.reason, error.url)


def test_ssrf_is_a_disallowed_host_and_blocked_keeps_wall_kind() -> None:
    assert issubclass(SsrfRefused, DisallowedHost)
    blocked = Blocked(URL, "consent")
    assert (blocked.wall, blocked.final_url) == ("consent", URL)
    assert "not an empty result" in str(blocked)
    assert HttpStatusError(URL, 410).status == 410
