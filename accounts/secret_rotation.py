"""Re-encrypt every stored secret with the newest key (``manage.py rotate_secrets``).

Rotation procedure (see :mod:`accounts.secrets`): put the new key first in
``SECRETS_ENCRYPTION_KEYS``, deploy, run ``secrets_rotate``, then remove the old key.

What is rotated: every ``EncryptedTextField`` of every installed model
(``models_with_secrets()``, found through the app registry - this shared app imports no
tenant app), in the public schema and in every tenant schema (inactive tenants too: their
secrets would become unreadable as well), wherever the model's table exists.

How: the ciphertext is read with SQL (never decrypted into Python objects), each value
that the newest key cannot already read is re-encrypted with ``MultiFernet.rotate``, and
written back set-based, one statement per column, only where the row still holds the
value read (a secret saved meanwhile is left alone: it is new anyway). One transaction
per schema. A value no configured key can decrypt is left untouched and reported: after
everything else is rotated, ``SecretUnreadable`` names each such value, so the operator
keeps the old key until they are re-entered.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.db import connection, transaction
from django_tenants.utils import get_public_schema_name

from accounts.models import Tenant
from accounts.secrets import SecretUnreadable, models_with_secrets, rotate_secret

__all__ = ["RotationReport", "secrets_rotate"]


@dataclass(frozen=True)
class RotationReport:
    schemas: tuple[str, ...]
    rotated: Counter = field(default_factory=Counter)  # "schema.table.column" -> values re-encrypted
    current: Counter = field(default_factory=Counter)  # values the newest key already encrypted
    unreadable: tuple[str, ...] = ()  # "schema.table.column id=…" no configured key can decrypt

    @property
    def total_rotated(self) -> int:
        return sum(self.rotated.values())


def secrets_rotate() -> RotationReport:
    """Rotate every stored secret to the newest key; raises SecretUnreadable (after rotating the rest)."""
    keys = list(settings.SECRETS_ENCRYPTION_KEYS)
    if not keys:
        raise SecretUnreadable("SECRETS_ENCRYPTION_KEYS is empty: nothing can be encrypted or decrypted")
    newest = Fernet(keys[0].encode())
    public = get_public_schema_name()
    schemas = (
        public,
        *Tenant.objects.exclude(schema_name=public).order_by("schema_name").values_list("schema_name", flat=True),
    )
    rotated: Counter = Counter()
    current: Counter = Counter()
    unreadable: list[str] = []
    columns = [
        (model._meta.db_table, model._meta.pk.column, model._meta.get_field(name).column)
        for model, names in models_with_secrets()
        for name in names
    ]
    for schema in schemas:
        tables = _tables_in(schema)
        with transaction.atomic():
            for table, pk, column in columns:
                if table not in tables:
                    continue
                where = f"{schema}.{table}.{column}"
                changed, kept, bad = _rotate_column(schema, table, pk, column, newest)
                rotated[where] += changed
                current[where] += kept
                unreadable.extend(f"{where} id={row_id}" for row_id in bad)
    report = RotationReport(schemas=tuple(schemas), rotated=rotated, current=current, unreadable=tuple(unreadable))
    if unreadable:
        raise SecretUnreadable(
            f"{len(unreadable)} stored secret(s) cannot be decrypted with any configured key and were left as they "
            f"are: {', '.join(unreadable)}. Keep the key they were encrypted with in SECRETS_ENCRYPTION_KEYS, or "
            f"enter those secrets again; all other secrets ({report.total_rotated}) now use the newest key."
        )
    return report


def _tables_in(schema: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = %s", [schema])
        return {row[0] for row in cursor.fetchall()}


def _rotate_column(schema: str, table: str, pk: str, column: str, newest: Fernet) -> tuple[int, int, list]:
    quote = connection.ops.quote_name
    target = f"{quote(schema)}.{quote(table)}"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {quote(pk)}, {quote(column)} FROM {target} WHERE {quote(column)} <> '' ORDER BY 1",  # noqa: S608 - quoted identifiers
        )
        rows = cursor.fetchall()
    ids, old_tokens, new_tokens, bad = [], [], [], []
    kept = 0
    for row_id, token in rows:
        if _readable_by(newest, token):
            kept += 1
            continue
        try:
            new_tokens.append(rotate_secret(token))
        except SecretUnreadable:
            bad.append(row_id)
            continue
        ids.append(row_id)
        old_tokens.append(token)
    if ids:
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {target} AS t SET {quote(column)} = v.new_token "  # noqa: S608 - quoted identifiers
                f"FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS v(id, old_token, new_token) "
                f"WHERE t.{quote(pk)} = v.id AND t.{quote(column)} = v.old_token",
                [ids, old_tokens, new_tokens],
            )
            changed = cursor.rowcount
    else:
        changed = 0
    return changed, kept, bad


def _readable_by(fernet: Fernet, token: str) -> bool:
    try:
        fernet.decrypt(token.encode())
    except InvalidToken:
        return False
    return True
