"""A form field with its label, help text and errors (``{% form_field field %}``), written in Python.

It was ``portal/_field.html``, included once per field: the search form's seventeen includes cost more of the
page's template time than the widgets they rendered (each include a context pushed and a dozen variables,
conditions and loops resolved by the engine). The HTML is the same; ``tests/notifications/portal/
test_form_fields.py`` holds the template it replaced and compares the two.
"""

from __future__ import annotations

from django import template
from django.forms import BoundField
from django.template.loader import render_to_string
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def form_field(field: BoundField) -> SafeString:
    """The field's block: checkbox groups in a fieldset, chip pickers by their own template, else label and input."""
    errors = field.errors
    widget_type = field.widget_type
    if widget_type == "checkboxselectmultiple":
        body = f"<fieldset><legend>{conditional_escape(field.label)}</legend>{field}</fieldset>"
    elif widget_type == "chippicker":
        body = render_to_string("portal/_chip_picker.html", {"field": field})
    else:
        label_for = conditional_escape(field.id_for_label)
        body = f'<label for="{label_for}">{conditional_escape(field.label)}</label>\n    {field}'
    help_text = (
        f'<small class="muted" id="{conditional_escape(field.auto_id)}_help">'
        f"{conditional_escape(field.help_text)}</small>"
        if field.help_text
        else ""
    )
    shown_errors = "".join(f'<p class="error" role="alert">{conditional_escape(error)}</p>' for error in errors)
    return SafeString(
        f'<div class="field{" has-error" if errors else ""}" data-field="{conditional_escape(field.name)}">\n'
        f"  \n    {body}\n  \n  {help_text}\n  {shown_errors}\n</div>\n"
    )
