import random

import pytest

from kernel.network import BackoffPolicy
from notifications.webhooks.outcomes import RetryRule, outcome_for_network_error, outcome_for_response, retry_delay

# The defaults of WEBHOOKS_BACKOFF / WEBHOOKS_RETRY_AFTER_CAP_SECONDS (test_delivery checks they are read).
RULE = RetryRule(
    backoff=BackoffPolicy(base_seconds=30, cap_seconds=3 * 3600, max_attempts=10, jitter="equal"),
    retry_after_cap_seconds=3600,
)
MAX_ATTEMPTS = RULE.backoff.max_attempts
BACKOFF_CAP_SECONDS = RULE.backoff.cap_seconds
RETRY_AFTER_CAP_SECONDS = RULE.retry_after_cap_seconds


def _response(status, *, attempts=1, retry_after=None, body=""):
    return outcome_for_response(
        status=status, attempts=attempts, retry_after=retry_after, body_excerpt=body, rule=RULE, rng=random.Random(1)
    )


@pytest.mark.parametrize("status", [200, 201, 202, 204, 299])
def test_2xx_is_sent(status):
    assert _response(status).verdict == "sent"


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 599])
def test_429_and_5xx_are_retried(status):
    outcome = _response(status, body="<h1>Wartung</h1>")
    assert outcome.verdict == "retry"
    assert outcome.retry_in_seconds > 0
    assert f"HTTP {status}" in outcome.error and "Wartung" in outcome.error


@pytest.mark.parametrize("status", [301, 302, 307, 400, 401, 403, 404, 410, 422])
def test_other_answers_are_final(status):
    outcome = _response(status)
    assert outcome.verdict == "failed"
    assert outcome.response_status == status


def test_redirect_failure_says_that_redirects_are_not_followed():
    assert "Weiterleitungen" in _response(302).error


def test_backoff_grows_and_is_capped():
    rng = random.Random(7)
    delays = [retry_delay(attempts=n, retry_after=None, rule=RULE, rng=rng) for n in range(1, 15)]
    assert 15 <= delays[0] <= 30
    assert delays[4] > delays[0]
    assert all(d <= BACKOFF_CAP_SECONDS for d in delays)
    assert delays[-1] >= BACKOFF_CAP_SECONDS / 2


def test_retry_after_is_honoured_up_to_a_cap():
    rng = random.Random(3)
    assert retry_delay(attempts=1, retry_after=600, rule=RULE, rng=rng) == 600
    assert retry_delay(attempts=1, retry_after=10 * 86400, rule=RULE, rng=rng) == RETRY_AFTER_CAP_SECONDS
    assert retry_delay(attempts=1, retry_after=0, rule=RULE, rng=rng) >= 15  # never sooner than the backoff


def test_gives_up_after_the_last_attempt():
    outcome = _response(503, attempts=MAX_ATTEMPTS)
    assert outcome.verdict == "failed"
    assert f"nach {MAX_ATTEMPTS} Versuchen" in outcome.error
    network = outcome_for_network_error(error="ConnectError", attempts=MAX_ATTEMPTS, rule=RULE, rng=random.Random(1))
    assert network.verdict == "failed"


def test_network_errors_are_retried_and_long_bodies_are_cut():
    assert (
        outcome_for_network_error(error="ReadTimeout", attempts=1, rule=RULE, rng=random.Random(1)).verdict == "retry"
    )
    assert len(_response(500, body="x" * 10_000).error) <= 500


def test_the_defaults_above_are_the_settings(settings):
    from notifications.webhooks.delivery import webhook_retry_rule

    assert webhook_retry_rule() == RULE
    settings.WEBHOOKS_BACKOFF = {**settings.WEBHOOKS_BACKOFF, "base_seconds": 5, "jitter": "none"}
    settings.WEBHOOKS_RETRY_AFTER_CAP_SECONDS = 60
    rule = webhook_retry_rule()
    assert retry_delay(attempts=2, retry_after=None, rule=rule, rng=random.Random(1)) == 10
    assert retry_delay(attempts=1, retry_after=600, rule=rule, rng=random.Random(1)) == 60
