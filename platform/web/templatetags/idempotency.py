"""``{% idempotency_field %}``: the hidden key that makes a form's create safe to submit
twice (``web.idempotency``); a fresh key with every render of the form."""

from __future__ import annotations

import uuid

from django import template
from django.utils.html import format_html

from web.idempotency import FORM_FIELD

register = template.Library()


@register.simple_tag
def idempotency_field() -> str:
    return format_html('<input type="hidden" name="{}" value="{}">', FORM_FIELD, uuid.uuid4().hex)
