import pytest

from notifications.webhooks.targets import WebhookTargetRefused, webhook_url_check


def _resolver(*addresses):
    return lambda host, port: list(addresses)


def _no_dns(host, port):
    raise OSError("no DNS in this test")


def test_public_https_url_is_accepted():
    url = "https://hooks.partner.example/tender-radar?x=1"
    assert webhook_url_check(url, allow_loopback=False, resolver=_resolver("93.184.215.14")) == url


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://hooks.partner.example/x", "HTTPS"),
        ("ftp://hooks.partner.example/x", "HTTPS"),
        ("javascript:alert(1)", "HTTPS"),
        ("https://user:secret@hooks.partner.example/x", "Zugangsdaten"),
        ("https://token@hooks.partner.example/x", "Zugangsdaten"),
        ("https:///nohost", "Host"),
        ("https://hooks.partner.example:99999/x", "ungültig"),
        ("", "URL"),
        ("https://example.org/" + "a" * 2001, "2000"),
    ],
)
def test_refused_urls(url, message):
    with pytest.raises(WebhookTargetRefused) as error:
        webhook_url_check(url, allow_loopback=False, resolver=_resolver("93.184.215.14"))
    assert message in error.value.message
    assert not error.value.retryable


@pytest.mark.parametrize(
    "address",
    ["10.0.0.5", "192.168.1.10", "172.16.0.1", "127.0.0.1", "169.254.169.254", "::1", "fd00::1", "::ffff:10.0.0.1"],
)
def test_hosts_resolving_to_internal_addresses_are_refused(address):
    with pytest.raises(WebhookTargetRefused, match="interne Adresse"):
        webhook_url_check("https://hooks.partner.example/x", allow_loopback=False, resolver=_resolver(address))


def test_one_internal_address_among_public_ones_is_enough_to_refuse():
    with pytest.raises(WebhookTargetRefused):
        webhook_url_check("https://h.example/x", allow_loopback=False, resolver=_resolver("93.184.215.14", "10.0.0.1"))


def test_ip_literals_are_checked_without_dns():
    with pytest.raises(WebhookTargetRefused, match="interne Adresse"):
        webhook_url_check("https://169.254.169.254/latest/meta-data", allow_loopback=False, resolver=_no_dns)
    assert webhook_url_check("https://93.184.215.14/hook", allow_loopback=False, resolver=_no_dns)


def test_unresolvable_host_is_refused_but_marked_retryable():
    with pytest.raises(WebhookTargetRefused) as error:
        webhook_url_check("https://gone.partner.example/x", allow_loopback=False, resolver=_no_dns)
    assert error.value.retryable


def test_plain_http_only_to_loopback_and_only_where_loopback_is_allowed():
    assert webhook_url_check("http://127.0.0.1:8080/hook", allow_loopback=True, resolver=_no_dns)
    assert webhook_url_check("http://localhost:8080/hook", allow_loopback=True, resolver=_resolver("127.0.0.1"))
    with pytest.raises(WebhookTargetRefused, match="HTTPS"):
        webhook_url_check("http://127.0.0.1:8080/hook", allow_loopback=False, resolver=_no_dns)
    with pytest.raises(WebhookTargetRefused, match="HTTPS"):
        webhook_url_check("http://93.184.215.14/hook", allow_loopback=True, resolver=_no_dns)
    with pytest.raises(WebhookTargetRefused, match="interne Adresse"):
        webhook_url_check("https://10.1.2.3/hook", allow_loopback=True, resolver=_no_dns)


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example\\@hooks.partner.example/x",  # a browser (and the URL standard) goes to evil.example
        "https:\\\\evil.example/x",
        "https://hooks.partner.example\t.evil.example/x",
    ],
)
def test_urls_that_browsers_read_with_another_host_are_refused(url):
    with pytest.raises(WebhookTargetRefused) as error:
        webhook_url_check(url, allow_loopback=False, resolver=_resolver("93.184.215.14"))
    assert "Host" in error.value.message


def test_the_checked_url_is_returned_in_the_form_every_reader_reads_alike():
    """The delivery posts to what the check returns, so both must name the host that was resolved."""
    checked = webhook_url_check(
        "https://Hooks.Partner.Example/x?a=1", allow_loopback=False, resolver=_resolver("93.184.215.14")
    )
    assert checked == "https://hooks.partner.example/x?a=1"
