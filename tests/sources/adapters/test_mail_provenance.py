"""Which alert mails are verified portal alerts: RFC 8601 results by position, exact alignment, portal hosts (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sources.adapters.mail import parse_alert_mail
from sources.adapters.mail.authentication import authenticated_domains, domains_equal, receiving_server_verdict
from sources.adapters.mail.forwarding import forwarder_domain_problem, organisational_domain
from sources.adapters.mail.hosts import portal_domains_from_rows
from sources.adapters.mail.portals import PORTAL_DOMAINS
from sources.adapters.mail.provenance import (
    AUTHENTICATION_FORGED,
    FOREIGN_LINK,
    SENDER_UNVERIFIED,
    ApprovedSender,
    MailTrust,
    mail_provenance,
)
from sources.models import PortalFamily, QuarantineReason
from tests.fixtures.mail import RECEIVING_SERVER, as_received

MAIL = Path(__file__).resolve().parents[2] / "data" / "portals" / "mail"
TENDER24 = (MAIL / "tender24_daily_alert_iso-8859-1_qp.eml").read_bytes()
DTVP = (MAIL / "dtvp_alert_html_only.eml").read_bytes()
TRUST = MailTrust(authserv_id=RECEIVING_SERVER)


# --- Authentication-Results (RFC 8601) -------------------------------------------------------------


def test_only_headers_of_the_configured_authserv_id_count():
    headers = (
        "mx.attacker.example; dkim=pass header.d=tender24.de",
        f"{RECEIVING_SERVER.upper()}; spf=pass smtp.mailfrom=bounce@Mail.Tender24.de",
        f"{RECEIVING_SERVER}; dkim=fail header.d=tender24.de; dmarc=pass header.from=dtvp.de",
    )
    found = authenticated_domains(headers, authserv_id=RECEIVING_SERVER)
    assert [(f.method, f.domain) for f in found] == [("spf", "mail.tender24.de"), ("dmarc", "dtvp.de")]
    assert authenticated_domains(headers, authserv_id="") == ()


def test_rfc_8601_syntax_comments_versions_and_identity_forms():
    headers = (
        f"{RECEIVING_SERVER} 1; auth=pass (cram-md5) smtp.auth=sender@example.net;"
        " dkim=pass (good signature) header.i=@newsletter.dtvp.de; spf=pass smtp.mailfrom=dtvp.de",
        f"{RECEIVING_SERVER}; none",
    )
    found = authenticated_domains(headers, authserv_id=RECEIVING_SERVER)
    assert [(f.method, f.domain) for f in found] == [("dkim", "newsletter.dtvp.de"), ("spf", "dtvp.de")]


@pytest.mark.parametrize(
    "value",
    ["", ";;;", f"{RECEIVING_SERVER}; dkim=", f"{RECEIVING_SERVER}; dkim=pass header.d", "\x00\xff", "x" * 5000],
)
def test_unparsable_headers_are_ignored_never_raised(value):
    assert authenticated_domains([value], authserv_id=RECEIVING_SERVER) == ()


def test_alignment_is_exact_never_by_organisational_domain():
    assert domains_equal("Tender24.DE.", "tender24.de") and domains_equal("@tender24.de", "tender24.de")
    assert not domains_equal("bounces.tender24.de", "tender24.de")
    assert not domains_equal("polizei.hessen.de", "vergabe.hessen.de")
    assert not domains_equal("muenchen.de", "vergabe.muenchen.de")
    assert not domains_equal("de", "de") and not domains_equal("", "")


def test_only_the_header_above_the_first_received_field_counts():
    own = f"{RECEIVING_SERVER}; dkim=pass header.d=tender24.de"
    top = receiving_server_verdict(
        [("authentication-results", own), ("received", "from a by mx"), ("received", "from b by a")],
        authserv_id=RECEIVING_SERVER,
    )
    assert [(p.method, p.domain) for p in top.passed] == [("dkim", "tender24.de")] and not top.refusal
    below = receiving_server_verdict(
        [("received", "from a by mx"), ("authentication-results", own)], authserv_id=RECEIVING_SERVER
    )
    assert below.passed == () and "below a Received: field" in below.refusal
    # Foreign authserv-ids are someone else's business wherever they stand; unparsable ones claim nothing.
    foreign = receiving_server_verdict(
        [("received", "x"), ("authentication-results", "mx.other.example; dkim=pass header.d=tender24.de")],
        authserv_id=RECEIVING_SERVER,
    )
    assert foreign.refusal == "" and foreign.headers == 0
    assert receiving_server_verdict([("authentication-results", own)], authserv_id="").passed == ()


def test_a_header_with_an_unknown_version_vouches_for_nothing():
    verdict = receiving_server_verdict(
        [("authentication-results", f"{RECEIVING_SERVER} 2; dkim=pass header.d=tender24.de")],
        authserv_id=RECEIVING_SERVER,
    )
    assert verdict.passed == ()


def test_shared_hosting_and_vendor_domains_cannot_be_approved_as_forwarders():
    assert organisational_domain("Mail.Tender24.DE.") == "tender24.de" and organisational_domain("de") == ""
    assert "gemeinsame Domain" in forwarder_domain_problem("vmstart.de", portal_domains=PORTAL_DOMAINS)
    assert "gemeinsame Domain" in forwarder_domain_problem("cosinex.de", portal_domains=PORTAL_DOMAINS)
    # The registrable domain of two known portal hosts (e.g. from two Sources) is shared, too.
    hosts = {"netserver": ("vergabe.stadt.example", "ausschreibung.stadt.example")}
    assert "mehrerer Portale" in forwarder_domain_problem("stadt.example", portal_domains=hosts)
    assert "öffentliche Endung" in forwarder_domain_problem("co.uk", portal_domains=PORTAL_DOMAINS)
    assert "Hostnamen" in forwarder_domain_problem("noreply@tender24.de", portal_domains=PORTAL_DOMAINS)
    assert forwarder_domain_problem("tender24.de", portal_domains=PORTAL_DOMAINS) == ""
    assert forwarder_domain_problem("lhs-vpbw.vmstart.de", portal_domains=PORTAL_DOMAINS) == ""


def test_codes_and_families_match_the_models_labels():
    assert AUTHENTICATION_FORGED in QuarantineReason.values and SENDER_UNVERIFIED in QuarantineReason.values
    assert set(PortalFamily.values) == set(PORTAL_DOMAINS)


# --- provenance of a parsed mail -------------------------------------------------------------------


def test_a_dkim_verified_portal_alert_with_portal_links_is_verified():
    verdict = mail_provenance(parse_alert_mail(as_received(TENDER24, dkim="tender24.de")), trust=TRUST)
    assert (verdict.verified, verdict.family, verdict.via) == (True, "netserver", "dkim")


def test_a_pass_for_another_domain_does_not_verify_the_sender():
    verdict = mail_provenance(parse_alert_mail(as_received(TENDER24, dkim="sendgrid.net")), trust=TRUST)
    assert (verdict.verified, verdict.reason) == (False, SENDER_UNVERIFIED)
    # sendgrid.net's pass proves nothing about tender24.de: the detail names the sender domain it failed for.
    assert verdict.detail == (
        f"the DKIM/SPF pass of {RECEIVING_SERVER!r} is for sendgrid.net, not for the sender domain tender24.de "
        "itself (alignment is exact)"
    )


def test_without_a_configured_authserv_id_nothing_is_verified_but_an_approved_forwarder_is_honoured():
    parse = parse_alert_mail(as_received(TENDER24, dkim="tender24.de"))
    unconfigured = mail_provenance(parse, trust=MailTrust())
    assert (unconfigured.verified, unconfigured.reason) == (False, SENDER_UNVERIFIED)
    assert "no authserv-id" in unconfigured.detail
    rule = ApprovedSender(family="netserver", domain="tender24.de")
    forwarded = mail_provenance(parse_alert_mail(TENDER24), trust=MailTrust(forwarders=(rule,)))
    assert (forwarded.verified, forwarded.via) == (True, "forwarding rule")
    other = ApprovedSender(family="cosinex", domain="dtvp.de")
    assert mail_provenance(parse_alert_mail(TENDER24), trust=MailTrust(forwarders=(other,))).verified is False
    # Approved for another family: tender24.de's alerts are NetServer's, the rule does not cover them.
    wrong_family = ApprovedSender(family="cosinex", domain="tender24.de")
    assert mail_provenance(parse_alert_mail(TENDER24), trust=MailTrust(forwarders=(wrong_family,))).verified is False


def test_links_must_stay_within_the_senders_portal_family():
    # A genuine dtvp.de mail may link another cosinex portal (evergabe-online.de), never a NetServer one.
    verdict = mail_provenance(parse_alert_mail(as_received(DTVP, dkim="dtvp.de")), trust=TRUST)
    assert verdict.verified and verdict.family == "cosinex"
    as_tender24 = as_received(
        DTVP.replace(b"noreply@dtvp.de", b"noreply@tender24.de"), dkim="tender24.de"
    )  # the sender's family is NetServer now, the links are cosinex
    verdict = mail_provenance(parse_alert_mail(as_tender24), trust=TRUST)
    assert (verdict.verified, verdict.reason) == (False, FOREIGN_LINK)
    assert "dtvp.de" in verdict.detail and "evergabe-online.de" in verdict.detail


def test_a_mail_from_no_portal_names_its_envelope_sender():
    raw = TENDER24.replace(b"From: tender24 Vergabeplattform <noreply@tender24.de>", b"From: Vergabe <a@b.example>")
    verdict = mail_provenance(parse_alert_mail(as_received(raw, dkim="b.example")), trust=TRUST)
    assert (verdict.verified, verdict.reason) == (False, SENDER_UNVERIFIED)
    assert verdict.detail == "sender 'a@b.example' (Return-Path noreply@tender24.de) is no known portal address"


def test_sources_of_the_installation_extend_their_portal_family():
    rows = [
        ("netserver", {"base_url": "https://vergabe.neue-stadt.example/NetServer/"}),
        ("rss", {"feed_url": "https://rss.example/feed"}),
        ("cosinex", "not a mapping"),
    ]
    domains = portal_domains_from_rows(rows)
    assert "vergabe.neue-stadt.example" in domains["netserver"]
    assert not any("rss.example" in hosts for hosts in domains.values())
