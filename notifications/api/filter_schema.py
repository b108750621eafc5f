"""The partner API's view of the search filters, built from their one declaration (``tenders.filter_fields``).

Query parameters of ``GET /api/v1/tenders/`` and the filter object of a saved search are
documentation only: validation is ``tenders.filters.parse_filters`` (one rule set).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from tenders.filter_fields import FILTER_FIELDS, FilterField
from tenders.filter_values import STATUSES

_PARAMETER_TYPES = {
    "string": OpenApiTypes.STR,
    "number": OpenApiTypes.NUMBER,
    "integer": OpenApiTypes.INT,
    "date": OpenApiTypes.DATE,
}


def _parameter(field: FilterField) -> OpenApiParameter:
    if field.many:
        return OpenApiParameter(field.name, OpenApiTypes.STR, many=True, explode=True, description=field.description)
    return OpenApiParameter(field.name, _PARAMETER_TYPES[field.api_type], description=field.description)


FILTER_PARAMETERS: list[OpenApiParameter] = [_parameter(field) for field in FILTER_FIELDS]


def _serializer_field(field: FilterField) -> serializers.Field:
    options = {"required": False, "help_text": field.description}
    if field.many:
        child = serializers.ChoiceField(choices=STATUSES) if field.choices == "statuses" else serializers.CharField()
        return serializers.ListField(child=child, **options)
    if field.api_type == "integer":
        return serializers.IntegerField(**options)
    if field.api_type == "date":
        return serializers.DateField(**options)
    # Amounts too: German notation ("1.000.000,50") is accepted as text.
    return serializers.CharField(**options)


TenderFiltersSerializer = type(
    "TenderFiltersSerializer",
    (serializers.Serializer,),
    {
        "__module__": __name__,
        "__doc__": "The filters of a saved search; validation is ``tenders.filters.parse_filters``.",
        **{field.name: _serializer_field(field) for field in FILTER_FIELDS},
    },
)
