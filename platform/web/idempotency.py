"""Creates that are safe to send twice: the ``Idempotency-Key`` of a request.

Every endpoint that creates something for a player (a live match against a bot, a
challenge, a queue entry, a deck, a tournament or an entry in one, a bot match) accepts
a key: the ``Idempotency-Key`` header (API) or the ``idempotency_key`` field of a form
(the website's pages render one with each form). The first request with a key creates
the row and stores the answer it got with the key, in the same transaction; any later
request of the same player with the same key gets that stored answer (and the header
``Idempotent-Replayed: true``) and creates nothing. Two requests at the same moment
(a double click) are serialised by the key's unique row: the second waits for the first
to commit and then gets its answer. A request that fails stores nothing, so the same key
can be sent again. A key sent again with different data is refused (409,
``idempotency_key_reused``): it names another request. Requests without a key create
every time. A key answers for ``IDEMPOTENCY_KEY_HOURS`` (24 by default): an older one is
unknown, the next request with it creates anew, and beat's hourly
``web.prune_idempotency_keys`` deletes it (:func:`idempotency_keys_prune`). See docs/api.md.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from web.apperrors import AppError
from web.models import IdempotencyKey

HEADER = "Idempotency-Key"
FORM_FIELD = "idempotency_key"
KEY_MAX = 100
_KEY = re.compile(r"^[A-Za-z0-9_.:-]{8,100}$")
#: Form fields left out of a request's fingerprint (they change with every render).
_UNSIGNED = {"csrfmiddlewaretoken", FORM_FIELD}
REPLAYED = "Idempotent-Replayed"

#: The header as the API schema declares it: every API view method that calls
#: :func:`api_create_once` lists it in its ``extend_schema(parameters=[...])``
#: (tests/platform/test_idempotency_schema.py finds them in the code and checks the schema).
IDEMPOTENCY_KEY = OpenApiParameter(
    HEADER, OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="A new random key (a UUID) per thing to create; the same key sent again gets the first answer "
                "(header Idempotent-Replayed: true) and creates nothing")


class _Taken(Exception):
    """The key's row was written by a request that committed meanwhile."""


def key_of(request) -> str | None:
    """The request's idempotency key (header first, then the form field), or None.

    Raises ``ValidationError`` naming the header for a key that is not 8 to 100 letters,
    digits or ``_.:-`` (a UUID fits)."""
    raw = request.headers.get(HEADER)
    name = HEADER
    if raw is None and request.method == "POST" and request.content_type != "application/json":
        raw, name = request.POST.get(FORM_FIELD), FORM_FIELD
    if raw is None or raw == "":
        return None
    if not _KEY.match(raw):
        raise ValidationError({name: [f"{name} must be 8 to {KEY_MAX} letters, digits or _.:- (a UUID fits)"]})
    return raw


def fingerprint(scope: str, data: Any) -> str:
    """sha256 of ``scope`` and the request's data (form fields that change with every
    render left out)."""
    if hasattr(data, "lists"):  # a QueryDict
        data = {name: values for name, values in data.lists() if name not in _UNSIGNED}
    text = json.dumps([scope, data], sort_keys=True, cls=DjangoJSONEncoder, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def expired_before(now: datetime | None = None) -> datetime | None:
    """Keys created before this moment are unknown (``IDEMPOTENCY_KEY_HOURS`` ago; None
    when the setting is 0: keys are kept forever)."""
    hours = float(settings.IDEMPOTENCY_KEY_HOURS)
    if hours <= 0:
        return None
    return (now or timezone.now()) - timedelta(hours=hours)


def _known(user, key: str):
    """The key's rows still within the window."""
    rows = IdempotencyKey.objects.filter(user=user, key=key)
    cutoff = expired_before()
    return rows if cutoff is None else rows.filter(created__gte=cutoff)


def idempotency_keys_prune(*, now: datetime | None = None) -> int:
    """Delete every key older than the window (:func:`expired_before`); returns how many.
    The rows those requests created stay: only the record of the request goes."""
    cutoff = expired_before(now)
    if cutoff is None:
        return 0
    deleted, _ = IdempotencyKey.objects.filter(created__lt=cutoff).delete()
    return deleted


def _stored(*, user, key: str, scope: str, print_: str) -> tuple[int, Any] | None:
    row = _known(user, key).first()
    if row is None:
        return None
    if row.scope != scope or row.fingerprint != print_:
        raise AppError(f"this {HEADER} was already used for another request; send a new key for a new request",
                       code="idempotency_key_reused", status=409)
    return row.status, row.body


def create_once(*, user, key: str | None, scope: str, data: Any,
                create: Callable[[], tuple[int, Any]]) -> tuple[int, Any, bool]:
    """Run ``create`` (which writes the row and returns the answer's status and JSON body)
    at most once for ``user`` and ``key``; returns ``(status, body, replayed)``.

    Without a key, ``create`` simply runs. With one, the key's row is inserted first, in
    the transaction ``create`` runs in, and the answer is stored in it: a concurrent
    request with the same key waits on the unique row (PostgreSQL: the index; SQLite: the
    write lock every transaction takes) until this one commits, then gets the stored
    answer. An exception from ``create`` rolls the key back with everything else."""
    if key is None:
        status, body = create()
        return status, body, False
    print_ = fingerprint(scope, data)
    found = _stored(user=user, key=key, scope=scope, print_=print_)
    if found is not None:
        return (*found, True)
    try:
        with transaction.atomic():
            cutoff = expired_before()
            if cutoff is not None:
                # An expired key's row is unknown: it makes room for this request's.
                IdempotencyKey.objects.filter(user=user, key=key, created__lt=cutoff).delete()
            try:
                with transaction.atomic():
                    row = IdempotencyKey.objects.create(user=user, key=key, scope=scope, fingerprint=print_)
            except IntegrityError:
                raise _Taken from None
            status, body = create()
            row.status, row.body = status, body
            row.save(update_fields=["status", "body"])
    except _Taken:
        found = _stored(user=user, key=key, scope=scope, print_=print_)
        if found is None:  # the other request failed and rolled back: nothing was created
            raise AppError("a request with this key was refused meanwhile; send it again",
                           code="idempotency_key_busy", status=409) from None
        return (*found, True)
    return status, body, False


def api_create_once(request, *, scope: str, create: Callable[[], tuple[int, Any]]):
    """:func:`create_once` for a DRF view: the key from the request, the answer as a
    ``Response`` (a replay carries ``Idempotent-Replayed: true``)."""
    status, body, replayed = create_once(user=request.user, key=key_of(request), scope=scope, data=request.data,
                                         create=create)
    response = Response(body, status=status)
    if replayed:
        response[REPLAYED] = "true"
    return response


def page_create_once(request, *, scope: str, create: Callable[[], tuple[str, str]]) -> tuple[str, str, bool]:
    """:func:`create_once` for a website form: ``create`` returns the address to send
    the player to and the sentence to tell them; returns them with ``replayed`` (a second
    submit of the same rendered form, whose ``idempotency_key`` field, from the
    ``{% idempotency_field %}`` tag, is the key)."""

    def run() -> tuple[int, dict[str, str]]:
        location, message = create()
        return 303, {"location": location, "message": message}

    try:
        _, body, replayed = create_once(user=request.user, key=key_of(request), scope=scope, data=request.POST,
                                        create=run)
    except AppError as exc:
        if not exc.code.startswith("idempotency_key"):
            raise
        raise ValidationError({FORM_FIELD: ["this form was already sent with other values; "
                                            "reload the page to send new ones"]}) from None
    return body["location"], body["message"], replayed
