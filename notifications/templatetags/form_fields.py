"""A form field with its label, help text and errors (``{% form_field field %}``), written in Python.

It was ``portal/_field.html``, included once per field: the search form's seventeen includes cost more of the
page's template time than the widgets they rendered (each include a context pushed and a dozen variables,
conditions and loops resolved by the engine). The HTML is the same; ``tests/notifications/portal/
test_form_fields.py`` holds the template it replaced and compares the two.

A form class that sets ``fields_render_alike`` (the search filters) promises that a field's HTML follows from
its name, value, errors and choices in a language: such blocks are kept per process (``_remembered``), since
most of the seventeen fields of a search are empty on every request and the rest repeat.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from django import template
from django.forms import BoundField
from django.template.loader import render_to_string
from django.urls import get_urlconf
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString
from django.utils.translation import get_language

register = template.Library()

# Bounded: a value someone typed is part of a key, so keys are as many as the searches people make.
REMEMBERED_BLOCKS = 2048
_remembered: OrderedDict[tuple, SafeString] = OrderedDict()
_lock = threading.Lock()


@register.simple_tag
def form_field(field: BoundField) -> SafeString:
    """The field's block: checkbox groups in a fieldset, chip pickers by their own template, else label and input."""
    if not getattr(field.form, "fields_render_alike", False):
        return _field_block(field)
    key = _block_key(field)
    with _lock:
        block = _remembered.get(key)
        if block is not None:
            _remembered.move_to_end(key)
            return block
    block = _field_block(field)
    with _lock:
        _remembered[key] = block
        while len(_remembered) > REMEMBERED_BLOCKS:
            _remembered.popitem(last=False)
    return block


def _block_key(field: BoundField) -> tuple:
    """Everything a remembered block depends on; the whole key, so no other form's value or choice can show."""
    form = field.form
    value = field.value()
    choices = getattr(field.field, "choices", None)
    return (
        type(form),
        form.auto_id,
        form.prefix,
        field.name,
        get_language(),
        get_urlconf(),  # the pickers' addresses
        tuple(value) if isinstance(value, list | tuple) else value,
        tuple(str(error) for error in field.errors),
        tuple((str(option), str(label)) for option, label in choices) if choices is not None else None,
    )


def _field_block(field: BoundField) -> SafeString:
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
