"""``field__any=[...]``: one array parameter (``= ANY(%s)``) instead of one parameter per value.

Django's ``__in`` prepares and binds every element separately; for the thousands of
ids an ingest batch looks up, that costs more than the query itself.
"""

from django.db.models import Field, ForeignObject, Lookup


class AnyLookup(Lookup):
    lookup_name = "any"
    prepare_rhs = False

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s)", [*lhs_params, list(self.rhs)]


Field.register_lookup(AnyLookup)
ForeignObject.register_lookup(AnyLookup)
