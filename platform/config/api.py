"""The REST API's shared plumbing: one error shape, pagination and size-limited parsers.

Every API error, whatever raised it, leaves as::

    {"error": {"code": "validation_error",
               "message": "Some fields are not valid: decklist.",
               "fields": {"decklist": ["unknown card 'Ashen Drak' (did you mean Ashen Drake?)"]}}}

``code`` is stable and machine-readable (``validation_error``, ``not_authenticated``,
``authentication_failed``, ``permission_denied``, ``not_found``, ``method_not_allowed``,
``unsupported_media_type``, ``parse_error``, ``payload_too_large``, ``throttled`` (429, with
``Retry-After``), ``bad_request`` (a NUL byte in the address: web/middleware.py),
``server_error`` (web/errors.py), ...); ``message`` is
a sentence for people; ``fields`` maps each input field to its messages and is empty
when the error is not about fields. Services raise the application's own error
(``web.apperrors.AppError``: its code, message, fields and status) or Django's
``ValidationError`` / ``PermissionDenied`` / ``Http404``, views DRF's exceptions; this
module does the rest.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError
from django.http import Http404
from rest_framework import exceptions, parsers, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from web.apperrors import AppError
from web.inputs import parse_whole_number

#: The key DRF files errors about the whole input under; reported as-is in ``fields``.
NON_FIELD_KEY = "non_field_errors"


class PayloadTooLarge(exceptions.APIException):
    """A request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"

    def __init__(self, limit: int):
        super().__init__(f"The request body is larger than the {limit} bytes this API accepts.")


# --------------------------------------------------------------------------- error shape


def error_body(*, code: str, message: str, fields: Mapping[str, list[str]] | None = None) -> dict[str, Any]:
    """The one JSON error shape."""
    return {"error": {"code": code, "message": message, "fields": dict(fields or {})}}


def flatten_errors(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as ``{"field": [...], "decks.1": [...]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            for field, messages in flatten_errors(value, name).items():
                out.setdefault(field, []).extend(messages)
    elif isinstance(detail, list | tuple):
        if all(not isinstance(item, Mapping | list | tuple) for item in detail):
            out.setdefault(prefix or NON_FIELD_KEY, []).extend(str(item) for item in detail)
        else:
            for index, item in enumerate(detail):
                if not item:
                    continue
                for field, messages in flatten_errors(item, f"{prefix}.{index}" if prefix else str(index)).items():
                    out.setdefault(field, []).extend(messages)
    else:
        out.setdefault(prefix or NON_FIELD_KEY, []).append(str(detail))
    return out


def _validation_message(fields: Mapping[str, list[str]]) -> str:
    named = [name for name in fields if name != NON_FIELD_KEY]
    if not named:
        first = next(iter(fields.values()), ["The input is not valid."])
        return first[0] if first else "The input is not valid."
    return f"Some fields are not valid: {', '.join(named)}."


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's ``EXCEPTION_HANDLER``: every error in the shape above, with its status code.

    The application's own refusals (``web.apperrors.AppError``, raised by services) keep
    their code, message, fields and status (the one place they are mapped to HTTP);
    Django's ``ValidationError`` (raised by services) becomes a 400 with its message per
    field; an oversize body a 413; a value past the database's range (``OverflowError``,
    ``DataError``) a 400; anything unexpected is left to Django (a 500).
    """
    if isinstance(exc, AppError):
        from rest_framework.views import set_rollback  # cycle: see drf_exception_handler below

        set_rollback()
        if exc.status == status.HTTP_400_BAD_REQUEST and exc.fields:
            code, message = "validation_error", _validation_message(exc.fields)
        else:
            code, message = exc.code, exc.message
        return Response(error_body(code=code, message=message, fields=exc.fields), status=exc.status)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {NON_FIELD_KEY: exc.messages}
        exc = exceptions.ValidationError(detail=detail)
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    elif isinstance(exc, TooManyFieldsSent):
        exc = exceptions.ParseError(str(exc))
    elif isinstance(exc, OverflowError | DataError):
        # A number or text past what the database stores (a 29-digit id, say): the
        # client's input, whichever view passed it on without a bound of its own.
        exc = exceptions.ValidationError(
            {NON_FIELD_KEY: ["a value in the request is out of the range this API stores"]}
        )

    # Imported here: rest_framework.views reads the parser settings, which name this module.
    from rest_framework.views import exception_handler as drf_exception_handler

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = flatten_errors(exc.detail)
        response.data = error_body(code="validation_error", message=_validation_message(fields), fields=fields)
        return response
    if isinstance(exc, Http404):
        code, message = "not_found", "Not found."
    elif isinstance(exc, DjangoPermissionDenied):
        code, message = "permission_denied", str(exc) or "You do not have permission to do this."
    elif isinstance(exc, exceptions.APIException):
        code = exc.default_code
        codes = exc.get_codes()
        if isinstance(codes, str):
            code = codes
        message = str(exc.detail) if not isinstance(exc.detail, list | dict) else _validation_message(
            flatten_errors(exc.detail)
        )
    else:
        code, message = "error", str(exc)
    response.data = error_body(code=code, message=message)
    return response


# --------------------------------------------------------------------------- schema of the error shape


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable code, e.g. validation_error, permission_denied")
    message = serializers.CharField(help_text="What went wrong, in words")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Messages per input field; empty when the error is not about fields",
    )


class ErrorSerializer(serializers.Serializer):
    """The one error shape of the API (for the schema)."""

    error = ErrorDetailSerializer()


# --------------------------------------------------------------------------- pagination


class Pagination(PageNumberPagination):
    """``?page=N``; 20 items a page, ``?page_size=`` from 1 (larger than 100 counts as 100).

    The body is ``{"count", "next", "previous", "results"}``; a page past the end is a
    404 in the error shape, and a ``page_size`` that is not a whole number of at least 1
    (``null``, ``true``, ``0``, given twice) a 400 naming it, as the schema declares.
    """

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request) -> int:
        values = request.query_params.getlist(self.page_size_query_param)
        if not values:
            return self.page_size
        size = parse_whole_number(values[-1], max_digits=9) if len(values) == 1 else None
        if not size:
            shown = values[-1][:40] if len(values) == 1 else "more than one value"
            raise exceptions.ValidationError({self.page_size_query_param: [
                f"page_size must be a whole number from 1 (more than {self.max_page_size} counts as "
                f"{self.max_page_size}), not '{shown}'"]})
        return min(size, self.max_page_size)

    def get_schema_operation_parameters(self, view) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"]["maximum"] = 10**9 - 1
        return parameters


# --------------------------------------------------------------------------- parsers


class _LimitedParserMixin:
    """Reads at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes of the body, whatever the
    Content-Length says (or whether it is sent), before handing it to the real parser.

    DRF's parsers read the request stream directly, past Django's own size check, so the
    limit is enforced here; a larger body is a 413 in the error shape.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and stream is not None:
            request = (parser_context or {}).get("request")
            declared = _declared_length(request)
            if declared is not None and declared > limit:
                raise PayloadTooLarge(limit)
            body = stream.read(limit + 1)
            if len(body) > limit:
                raise PayloadTooLarge(limit)
            stream = io.BytesIO(body)
        return super().parse(stream, media_type, parser_context)


def _declared_length(request) -> int | None:
    if request is None:
        return None
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except (TypeError, ValueError):
        return None


#: Deepest nesting of arrays and objects accepted in a JSON body or WebSocket frame. The
#: API's own shapes are at most four deep; Python's decoder recurses once per level and
#: fails with a RecursionError (a 500) near a thousand.
MAX_JSON_DEPTH = 20

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_JSON_BRACKET = re.compile(r"[\[\]{}]")


class JSONTooDeep(ValueError):
    """A JSON text nested deeper than :data:`MAX_JSON_DEPTH`."""

    def __init__(self, limit: int = MAX_JSON_DEPTH):
        super().__init__(f"JSON nested more than {limit} levels deep is not accepted.")


def check_json_depth(text: str, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise :class:`JSONTooDeep` when ``text`` nests arrays or objects deeper than ``limit``.

    Counts brackets outside strings in one linear pass, before any decoding, so that the
    check costs the same whatever the nesting; malformed text is left to the decoder.
    """
    depth = 0
    for bracket in _JSON_BRACKET.findall(_JSON_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > limit:
                raise JSONTooDeep(limit)
        else:
            depth -= 1


def json_loads_bounded(text: str, limit: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that refuses nesting deeper than ``limit`` (:class:`JSONTooDeep`)."""
    check_json_depth(text, limit)
    return json.loads(text)


class _BoundedDepthMixin:
    """Refuses a JSON body nested deeper than :data:`MAX_JSON_DEPTH` with a 400 parse error."""

    def parse(self, stream, media_type=None, parser_context=None):
        if stream is not None:
            body = stream.read()
            try:
                check_json_depth(body.decode("utf-8", errors="replace"))
            except JSONTooDeep as exc:
                raise exceptions.ParseError(str(exc)) from None
            stream = io.BytesIO(body)
        return super().parse(stream, media_type, parser_context)


class JSONParser(_LimitedParserMixin, _BoundedDepthMixin, parsers.JSONParser):
    """``application/json`` bodies, size-limited and depth-limited."""


class FormParser(_LimitedParserMixin, parsers.FormParser):
    """``application/x-www-form-urlencoded`` bodies, size-limited."""


class MultiPartParser(parsers.MultiPartParser):
    """``multipart/form-data``; Django's multipart parser enforces the size limit itself
    (``RequestDataTooBig``, turned into a 413 by the exception handler)."""

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        declared = _declared_length(request)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and declared is not None and declared > limit:
            raise PayloadTooLarge(limit)
        return super().parse(stream, media_type, parser_context)


# --------------------------------------------------------------------------- 404 outside any view


def not_found(request, exception=None):
    """The site's 404 page, or the API's error shape for a path under /api/ (web.errors)."""
    from web.errors import not_found as handler  # cycle: web.errors imports config.api (error_body)

    return handler(request, exception)

