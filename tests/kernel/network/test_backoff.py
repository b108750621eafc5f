"""The one backoff formula every retrying channel uses (fetcher, mail outbox, webhooks), and that each reads its settings."""

from __future__ import annotations

import random

import pytest

from kernel.network import BackoffPolicy


class _Top(random.Random):
    def uniform(self, a: float, b: float) -> float:
        return b


def test_the_wait_grows_by_the_factor_and_stops_at_the_cap() -> None:
    policy = BackoffPolicy(base_seconds=0.5, cap_seconds=3.0, max_attempts=9, jitter="none")
    assert [policy.wait_seconds(n) for n in range(1, 7)] == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]
    tripling = BackoffPolicy(base_seconds=10, factor=3, cap_seconds=10_000, max_attempts=9, jitter="none")
    assert [tripling.wait_seconds(n) for n in range(1, 4)] == [10, 30, 90]
    assert policy.wait_seconds(10_000) == 3.0  # no overflow


def test_full_jitter_spreads_over_the_whole_range() -> None:
    policy = BackoffPolicy(base_seconds=1.0, cap_seconds=100.0, max_attempts=9, jitter="full")
    samples = [policy.wait_seconds(4, rng=random.Random(seed)) for seed in range(200)]
    assert all(0.0 <= s <= 8.0 for s in samples)
    assert min(samples) < 2.0 < 6.0 < max(samples)
    assert policy.wait_seconds(4, rng=_Top()) == 8.0


def test_equal_jitter_keeps_half_of_the_wait() -> None:
    policy = BackoffPolicy(base_seconds=30, cap_seconds=3600, max_attempts=9, jitter="equal")
    samples = [policy.wait_seconds(2, rng=random.Random(seed)) for seed in range(200)]
    assert all(30.0 <= s <= 60.0 for s in samples)
    assert min(samples) < 35.0 and max(samples) > 55.0


def test_attempts_are_used_up_at_max_attempts() -> None:
    policy = BackoffPolicy(base_seconds=1, cap_seconds=1, max_attempts=3)
    assert [policy.exhausted(n) for n in (1, 2, 3, 4)] == [False, False, True, True]


@pytest.mark.parametrize(
    "values",
    [
        {"base_seconds": -1, "cap_seconds": 1, "max_attempts": 1},
        {"base_seconds": 1, "cap_seconds": 1, "max_attempts": 0},
        {"base_seconds": 1, "cap_seconds": 1, "max_attempts": 1, "factor": 0.5},
        {"base_seconds": 1, "cap_seconds": 1, "max_attempts": 1, "jitter": "some"},
    ],
)
def test_impossible_values_are_refused(values) -> None:
    with pytest.raises(ValueError):
        BackoffPolicy.from_setting(values)


def test_a_setting_with_an_unknown_key_is_refused() -> None:
    with pytest.raises(TypeError):
        BackoffPolicy.from_setting({"base_seconds": 1, "cap_seconds": 1, "max_attempts": 1, "cap": 5})


@pytest.mark.parametrize("name", ["SOURCES_FETCH_BACKOFF", "ALERTS_MAIL_BACKOFF", "WEBHOOKS_BACKOFF"])
def test_every_channel_setting_is_a_valid_policy(settings, name) -> None:
    assert BackoffPolicy.from_setting(getattr(settings, name)).max_attempts >= 1


@pytest.mark.django_db
def test_the_fetcher_of_a_source_run_reads_its_backoff_from_settings(settings) -> None:
    from sources.models import Source
    from sources.registry import get_adapter
    from sources.services import fetch_policy_for

    settings.SOURCES_FETCH_BACKOFF = {
        "base_seconds": 0.5,
        "factor": 3.0,
        "cap_seconds": 20.0,
        "max_attempts": 2,
        "jitter": "equal",
    }
    source = Source.objects.get(key="tender24")
    policy = fetch_policy_for(source=source, adapter_class=get_adapter(source.adapter))
    assert policy.max_retries == 1
    assert policy.backoff == BackoffPolicy(
        base_seconds=0.5, factor=3.0, cap_seconds=20.0, max_attempts=2, jitter="equal"
    )
