"""The queue of a machine without Redis (kombu's filesystem transport): work handed on arrives, and no warning."""

from __future__ import annotations

import logging

from kombu import Connection, Exchange, Queue

from config.embedded import FILESYSTEM_BROKER_URL, filesystem_broker_options


def test_a_message_goes_through_the_folders_without_a_hostname_warning(tmp_path, caplog) -> None:
    options = filesystem_broker_options(tmp_path / "broker")
    queue = Queue("tenders", Exchange("tenders", type="direct"), routing_key="tenders")
    caplog.set_level(logging.WARNING, logger="kombu")

    # Through a connection pool, as Celery sends a task: the pool clones the connection by its settings.
    pool = Connection(FILESYSTEM_BROKER_URL, transport_options=options).Pool(limit=1)
    with pool.acquire(block=True) as connection:
        producer = connection.Producer()
        producer.publish({"tender_id": 7}, exchange=queue.exchange, routing_key="tenders", declare=[queue])
        received = []
        with connection.Consumer(queue, callbacks=[lambda body, message: (received.append(body), message.ack())]):
            connection.drain_events(timeout=5)

    assert received == [{"tender_id": 7}]
    assert list((tmp_path / "broker" / "queue").iterdir()) == []  # taken off the queue once acknowledged
    assert not [record for record in caplog.records if "hostname" in record.getMessage()]


def test_the_url_without_a_host_is_the_one_that_warned(tmp_path, caplog) -> None:
    """Why the URL names a host: kombu warns on every connection to a virtual transport without one."""
    options = filesystem_broker_options(tmp_path / "broker")
    caplog.set_level(logging.WARNING, logger="kombu")
    pool = Connection("filesystem://", transport_options=options).Pool(limit=1)
    with pool.acquire(block=True):
        pass
    assert [record for record in caplog.records if "No hostname was supplied" in record.getMessage()]
