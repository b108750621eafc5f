"""Operator-approved internal mail servers: which refused address an entry lets through, and which never."""

from __future__ import annotations

import ipaddress

import pytest

from kernel.network import RelayGrant, SsrfRefused, relay_exemption, relay_target_parse, resolve_and_check


def _resolver(*addresses):
    return lambda host, port: list(addresses)


def _check(host, port, grants, *addresses, protocol="smtp"):
    exempt = relay_exemption(grants, protocol=protocol, host=host, port=port)
    return resolve_and_check(
        f"//{host}:{port}", host, port, resolver=_resolver(*addresses), allow_loopback=False, exempt=exempt
    )


def test_targets_parse_as_host_name_or_network():
    assert relay_target_parse(" Relay.Intern.Example. ") == ("relay.intern.example", None)
    assert relay_target_parse("10.20.0.0/16") == ("", ipaddress.ip_network("10.20.0.0/16"))
    assert relay_target_parse("10.20.0.7") == ("", ipaddress.ip_network("10.20.0.7/32"))
    assert relay_target_parse("[fd00::25]") == ("", ipaddress.ip_network("fd00::25/128"))
    for bad in ("", "10.20.0.1/16", "relay intern", "http://relay/", "10.0.0.0/33"):
        with pytest.raises(ValueError):
            relay_target_parse(bad)


def test_an_internal_address_is_refused_without_an_entry():
    with pytest.raises(SsrfRefused) as refused:
        _check("relay.intern.example", 25, (), "10.20.0.5")
    assert refused.value.category == "private"


def test_a_host_entry_lets_that_name_through_on_its_protocol_and_port():
    grant = RelayGrant(protocol="smtp", host="relay.intern.example", port=25)
    assert _check("relay.intern.example", 25, [grant], "10.20.0.5") == ("10.20.0.5",)
    assert _check("RELAY.intern.example.", 25, [grant], "10.20.0.5") == ("10.20.0.5",)
    for host, port, protocol in [
        ("other.intern.example", 25, "smtp"),  # another name resolving to the same network
        ("relay.intern.example", 587, "smtp"),  # another port
        ("relay.intern.example", 25, "imap"),  # another protocol
    ]:
        with pytest.raises(SsrfRefused):
            _check(host, port, [grant], "10.20.0.5", protocol=protocol)


def test_a_network_entry_covers_the_resolved_address_not_the_name():
    grant = RelayGrant(protocol="both", network=ipaddress.ip_network("10.20.0.0/16"))
    assert _check("mx.firma.example", 587, [grant], "10.20.3.4") == ("10.20.3.4",)
    assert _check("10.20.9.9", 993, [grant], protocol="imap") == ("10.20.9.9",)
    with pytest.raises(SsrfRefused):  # a name that also resolves outside the network: every address must pass
        _check("mx.firma.example", 587, [grant], "10.20.3.4", "192.168.1.1")
    with pytest.raises(SsrfRefused):
        _check("mx.firma.example", 587, [grant], "172.16.0.1")


def test_a_port_entry_leaves_other_ports_refused():
    grant = RelayGrant(protocol="imap", network=ipaddress.ip_network("10.0.0.0/8"), port=993)
    assert _check("imap.intern", 993, [grant], "10.1.1.1", protocol="imap") == ("10.1.1.1",)
    with pytest.raises(SsrfRefused):
        _check("imap.intern", 143, [grant], "10.1.1.1", protocol="imap")


@pytest.mark.parametrize("address", ["169.254.169.254", "0.0.0.0", "224.0.0.1", "fe80::1"])  # noqa: S104
def test_metadata_multicast_and_unspecified_stay_refused_whatever_the_list_says(address):
    everything = [
        RelayGrant(protocol="both", network=ipaddress.ip_network("0.0.0.0/0")),
        RelayGrant(protocol="both", network=ipaddress.ip_network("::/0")),
        RelayGrant(protocol="both", host="relay.intern"),
    ]
    with pytest.raises(SsrfRefused):
        _check("relay.intern", 25, everything, address)


def test_a_public_address_needs_no_entry():
    assert relay_exemption((), protocol="smtp", host="mail.example.de", port=25) is None
    assert _check("mail.example.de", 25, (), "93.184.215.14") == ("93.184.215.14",)
