"""Django's standard widget templates rendered in Python, byte for byte (``FORM_RENDERER``).

A search page draws ~50 inputs and options; through the template engine each is an include of
``input.html`` and ``attrs.html``, a quarter of the page's Python time. The functions below
write the same HTML as those templates (``django/forms/templates/django/forms/widgets/``, which
this renderer's engine always finds first); any other template, a value the template engine
would treat specially (a callable) or an option template they do not know goes to the templates
as before. ``tests/config/test_form_renderer.py`` renders every field of every project form both
ways and compares the bytes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from django.forms.renderers import DjangoTemplates
from django.template.base import render_value_in_context
from django.template.defaultfilters import stringformat
from django.utils.html import escape
from django.utils.safestring import SafeData

_WIDGETS = "django/forms/widgets/"


class _Unsupported(Exception):
    """The widget holds something only the template engine renders faithfully."""


class _TemplateContext:
    # What render_value_in_context reads of a template Context made by the renderer's engine.
    autoescape = True
    use_l10n = None
    use_tz = None


_CONTEXT = _TemplateContext()


def _plain(value):
    # The template engine calls a callable it looks up; only the templates do that right.
    if callable(value):
        raise _Unsupported
    return value


def _text(value) -> str:
    """``{{ value }}``: localised, stringified, escaped unless safe."""
    value = _plain(value)
    if type(value) is str:
        return escape(value)
    return render_value_in_context(value, _CONTEXT)


def _formatted(value) -> str:
    """``{{ value|stringformat:'s' }}``: no localisation (no thousands separator in a value)."""
    value = _plain(value)
    text = stringformat(value, "s")
    # The filter is registered is_safe: a safe value stays unescaped.
    return text if isinstance(value, SafeData) else _text(text)


def _attrs(attrs: dict) -> str:
    # attrs.html; a key "items" would shadow the dict's method in the template.
    if "items" in attrs:
        raise _Unsupported
    parts = []
    for name, value in attrs.items():
        value = _plain(value)
        if value is False:
            continue
        parts.append(f" {_text(name)}" if value is True else f' {_text(name)}="{_formatted(value)}"')
    return "".join(parts)


def _input(widget: dict) -> str:
    value = _plain(widget.get("value"))
    # The template's "!=" (not "is not"): a value may define its own equality.
    shown = f' value="{_formatted(value)}"' if operator.ne(value, None) else ""
    return f'<input type="{_text(widget["type"])}" name="{_text(widget["name"])}"{shown}{_attrs(widget["attrs"])}>\n'


def _input_option(widget: dict) -> str:
    if not _plain(widget.get("wrap_label")):
        return _input(widget) + "\n"
    widget_id = widget["attrs"].get("id")
    label_for = f' for="{_text(widget_id)}"' if _plain(widget_id) else ""
    return f"<label{label_for}>{_input(widget)} {_text(widget['label'])}</label>\n"


def _select_option(widget: dict) -> str:
    return f'<option value="{_formatted(widget["value"])}"{_attrs(widget["attrs"])}>{_text(widget["label"])}</option>\n'


def _option(option: dict) -> str:
    render = _OPTIONS.get(option.get("template_name"))
    if render is None:
        raise _Unsupported
    return render(option)


def _select(widget: dict) -> str:
    parts = [f'<select name="{_text(widget["name"])}"{_attrs(widget["attrs"])}>']
    for group_name, group_choices, _index in widget["optgroups"]:
        if group_name:
            parts.append(f'\n  <optgroup label="{_text(group_name)}">')
        parts.extend(f"\n  {_option(option)}" for option in group_choices)
        if group_name:
            parts.append("\n  </optgroup>")
    parts.append("\n</select>\n")
    return "".join(parts)


def _multiple_input(widget: dict) -> str:
    widget_id = _plain(widget["attrs"].get("id"))
    css_class = _plain(widget["attrs"].get("class"))
    parts = [
        "<div",
        f' id="{_text(widget_id)}"' if widget_id else "",
        f' class="{_text(css_class)}"' if css_class else "",
        ">",
    ]
    for group, options, _index in widget["optgroups"]:
        if group:
            parts.append(f"\n  <div><label>{_text(group)}</label>")
        parts.extend(f"<div>\n    {_option(option)}</div>" for option in options)
        if group:
            parts.append("\n  </div>")
    parts.append("\n</div>\n")
    return "".join(parts)


def _textarea(widget: dict) -> str:
    value = _plain(widget.get("value"))
    shown = _text(value) if value else ""
    return f'<textarea name="{_text(widget["name"])}"{_attrs(widget["attrs"])}>\n{shown}</textarea>\n'


def _included(render: Callable[[dict], str]) -> Callable[[dict], str]:
    """A template that is only ``{% include … %}`` and its file's final newline."""
    return lambda widget: render(widget) + "\n"


_OPTIONS: dict[str, Callable[[dict], str]] = {
    _WIDGETS + "select_option.html": _select_option,
    _WIDGETS + "input_option.html": _input_option,
    _WIDGETS + "checkbox_option.html": _included(_input_option),
    _WIDGETS + "radio_option.html": _included(_input_option),
}

_TEMPLATES: dict[str, Callable[[dict], str]] = {
    _WIDGETS + "input.html": _input,
    **{
        f"{_WIDGETS}{name}.html": _included(_input)
        for name in (
            "text",
            "number",
            "email",
            "url",
            "color",
            "search",
            "tel",
            "password",
            "hidden",
            "file",
            "date",
            "datetime",
            "time",
            "checkbox",
        )
    },
    _WIDGETS + "select.html": _select,
    _WIDGETS + "multiple_input.html": _multiple_input,
    _WIDGETS + "checkbox_select.html": _included(_multiple_input),
    _WIDGETS + "radio.html": _included(_multiple_input),
    _WIDGETS + "textarea.html": _textarea,
    **_OPTIONS,
}


class FormRenderer(DjangoTemplates):
    """Django's template renderer, with its standard widgets written in Python (same bytes)."""

    def render(self, template_name, context, request=None):
        render = _TEMPLATES.get(template_name)
        widget = context.get("widget")
        if render is not None and isinstance(widget, dict):
            try:
                return render(widget).strip()  # BaseRenderer.render strips the template's output too
            except (_Unsupported, KeyError):
                pass
        return super().render(template_name, context, request)
