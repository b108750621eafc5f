from django.core.mail import get_connection, send_mail


def test_real_smtp_server_records_messages(smtp_server):
    connection = get_connection(
        "django.core.mail.backends.smtp.EmailBackend", host=smtp_server.host, port=smtp_server.port, timeout=5
    )
    send_mail("Frist läuft ab", "Größe: 5 €", "radar@example.org", ["kunde@example.org"], connection=connection)
    assert len(smtp_server.messages) == 1
    message = smtp_server.messages[0]
    assert message["Subject"] == "Frist läuft ab"
    assert message.get_content().strip() == "Größe: 5 €"
