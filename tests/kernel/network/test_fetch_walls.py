"""Wall detection: a login/consent/error page or a page without results markup is never "zero results"."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from pytest_httpserver import HTTPServer

from kernel.network import Blocked, ConditionalState, Fetcher, FetchResult, detect_wall, raise_for_wall

SEARCH = "https://www.dtvp.de/Center/common/project/search.do?method=showExtendedSearch"
RESULTS = '<html><table class="resultTable"><tr><td>Los 1</td></tr></table></html>'


@pytest.mark.parametrize(
    ("final_url", "reason"),
    [
        ("https://www.dtvp.de/Center/login.do", "login"),
        ("https://www.dtvp.de/Center/Anmelden", "login"),
        ("https://id.dtvp.de/realms/dtvp/protocol/openid-connect/auth?client_id=center", "login"),
        ("https://www.dtvp.de/oauth2/authorize", "login"),
        ("https://www.dtvp.de/signin?return=/Center", "login"),
        ("https://www.dtvp.de/consent?redirect=/Center", "consent"),
        ("https://www.dtvp.de/cookie-hinweis", "consent"),
        ("https://www.dtvp.de/error.html", "error-page"),
        ("https://www.dtvp.de/Fehlerseite", "error-page"),
        ("https://www.dtvp.de/404", "error-page"),
    ],
)
def test_redirect_to_wall_url(final_url: str, reason: str) -> None:
    assert detect_wall(requested_url=SEARCH, final_url=final_url, text=RESULTS, expected_marker=None) == reason


def test_same_url_with_marker_is_no_wall() -> None:
    assert detect_wall(requested_url=SEARCH, final_url=SEARCH, text=RESULTS, expected_marker="resultTable") is None


@pytest.mark.parametrize(
    ("requested", "final"),
    [
        ("https://portal.example/errors/list", "https://portal.example/errors/list/"),  # words already requested
        ("http://portal.example/search", "https://portal.example/search"),  # scheme upgrade
        ("https://portal.example/authority/42", "https://portal.example/authority/42/notices"),  # "authority" ≠ auth
    ],
)
def test_harmless_redirects_are_no_wall(requested: str, final: str) -> None:
    assert detect_wall(requested_url=requested, final_url=final, text=RESULTS, expected_marker=None) is None


def test_missing_marker_is_missing_result_container() -> None:
    text = "<html><p>Der Dienst ist vorübergehend nicht erreichbar.</p></html>"
    reason = detect_wall(requested_url=SEARCH, final_url=SEARCH, text=text, expected_marker="resultTable")
    assert reason == "missing-result-container"


def test_missing_marker_with_password_field_is_login() -> None:
    text = '<form><input name="user"><input type="password" name="pw"></form>'
    assert detect_wall(requested_url=SEARCH, final_url=SEARCH, text=text, expected_marker="resultTable") == "login"


def test_marker_may_be_a_regex() -> None:
    marker = re.compile(r'class="[^"]*\bresultTable\b')
    assert detect_wall(requested_url=SEARCH, final_url=SEARCH, text=RESULTS, expected_marker=marker) is None
    empty = "<table class='other'></table>"
    assert detect_wall(requested_url=SEARCH, final_url=SEARCH, text=empty, expected_marker=marker) is not None


def test_fetched_redirect_to_login_is_blocked(
    httpserver: HTTPServer, make_fetcher: Callable[..., Fetcher], serve_robots
) -> None:
    serve_robots(None)
    httpserver.expect_request("/search").respond_with_data("", status=302, headers={"Location": "/login?next=/search"})
    httpserver.expect_request("/login").respond_with_data(
        '<form><input type="password"></form>', content_type="text/html"
    )
    result = make_fetcher().get(httpserver.url_for("/search"))
    assert result.status == 200  # HTTP says fine ...
    text = result.decoded().text
    assert detect_wall(requested_url=result.url, final_url=result.final_url, text=text, expected_marker=None) == "login"
    with pytest.raises(Blocked) as info:  # ... but it is a wall, not an empty result list
        raise_for_wall(result, expected_marker="resultTable")
    assert (info.value.reason, info.value.wall) == ("blocked", "login")
    assert result.final_url in str(info.value)


def test_fetched_page_without_marker_is_blocked(
    httpserver: HTTPServer, make_fetcher: Callable[..., Fetcher], serve_robots
) -> None:
    serve_robots(None)
    httpserver.expect_request("/search").respond_with_data("<html><body>Wartungsarbeiten</body></html>")
    result = make_fetcher().get(httpserver.url_for("/search"))
    with pytest.raises(Blocked) as info:
        raise_for_wall(result, expected_marker="resultTable")
    assert info.value.wall == "missing-result-container"
    httpserver.expect_request("/ok").respond_with_data(RESULTS)
    raise_for_wall(make_fetcher().get(httpserver.url_for("/ok")), expected_marker="resultTable")  # no raise


def test_not_modified_result_is_judged_by_url_only() -> None:
    result = FetchResult(
        url=SEARCH,
        final_url=SEARCH,
        status=304,
        headers={},
        body=b"",
        not_modified=True,
        conditional=ConditionalState(etag='"v1"'),
        elapsed=0.0,
    )
    raise_for_wall(result, expected_marker="resultTable")  # empty body is expected for a 304
