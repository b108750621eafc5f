"""Template filters of the chip pickers (``templates/portal/_chip_picker.html``)."""

from __future__ import annotations

from django import template
from django.utils.translation import get_language

from notifications.portal.filter_chips import Chip, picker_chips

register = template.Library()


@register.filter
def chosen_chips(bound_field) -> list[Chip]:
    """The chips of a bound chip-picker field: its values as the form shows them, with their labels."""
    values = bound_field.value() or []
    if isinstance(values, str):
        values = [values]
    return picker_chips(bound_field.field.widget.vocabulary, values, language=get_language() or "de")
