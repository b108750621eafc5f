"""One host list per portal family: the alert-mail domains of NetServer and cosinex come from the hosts
their adapters crawl (``sources.adapters.mail.portals``)."""

from __future__ import annotations

import pytest

from sources.adapters.cosinex import options as cosinex_options
from sources.adapters.mail.portals import PORTAL_DOMAINS, family_domains, in_domains
from sources.adapters.netserver import options as netserver_options

FAMILIES = [("netserver", netserver_options), ("cosinex", cosinex_options)]


@pytest.mark.parametrize(("family", "options"), FAMILIES)
def test_every_crawled_host_is_a_mail_domain_of_its_family_and_nothing_else_is(family, options):
    domains = PORTAL_DOMAINS[family]
    assert all(in_domains(host, domains) for host in options.KNOWN_HOSTS)
    # Nothing but the crawled hosts and the family's whole domains.
    for domain in domains:
        assert domain in options.FAMILY_DOMAINS or any(
            host.removeprefix("www.") == domain for host in options.KNOWN_HOSTS
        )


def test_a_portal_added_to_the_crawl_list_is_known_to_the_mail_check():
    hosts = (*netserver_options.KNOWN_HOSTS, "www.vergabe.example-stadt.de")
    assert "vergabe.example-stadt.de" in family_domains(hosts, netserver_options.FAMILY_DOMAINS)


def test_hosts_under_a_whole_domain_are_covered_by_it_and_www_is_dropped():
    assert family_domains(["www.a.de", "x.hosting.de", "a.de", "y.hosting.de"], ["hosting.de"]) == (
        "a.de",
        "hosting.de",
    )


def test_the_derived_lists_are_the_known_portal_domains():
    # The domains the two hand-kept lists held before they were derived (sender and link checks unchanged).
    assert set(PORTAL_DOMAINS["netserver"]) == {
        "tender24.de",
        "vergabe.landbw.de",
        "vmstart.de",
        "vergabe.muenchen.de",
        "vergabe.autobahn.de",
        "vergabe.hessen.de",
        "vergabekooperation.berlin",
        "evergabe.sachsen.de",
        "vergabe.bremen.de",
        "ausschreibungen.ls.brandenburg.de",
        "vergabe.lvr.de",
        "vergabe.stadt-frankfurt.de",
        "vergabe.duesseldorf.de",
        "ai-ag.de",
    }
    assert set(PORTAL_DOMAINS["cosinex"]) == {
        "dtvp.de",
        "evergabe-online.de",
        "vergabe.niedersachsen.de",
        "vergabemarktplatz.brandenburg.de",
        "evergabe.nrw.de",
        "vergabe-westfalen.de",
        "vmp-rheinland.de",
        "vergabe.metropoleruhr.de",
        "vergabe.stadt-koeln.de",
        "cosinex.de",
    }
