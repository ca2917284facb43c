"""Middleware of the site: WhiteNoise adapted to ASGI, the refusal of NUL bytes in addresses,
and the site's own 404 page with DEBUG on."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import BadRequest
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, HttpRequest, HttpResponseBase
from django.urls import Resolver404, resolve
from whitenoise.middleware import WhiteNoiseFileResponse
from whitenoise.middleware import WhiteNoiseMiddleware as BaseWhiteNoiseMiddleware

from web.errors import bad_request, not_found

_END = object()


async def _read_in_thread(chunks: Iterable[bytes]) -> AsyncIterator[bytes]:
    """Yield the chunks of a blocking file iterator, each read in a worker thread."""
    iterator = iter(chunks)
    read = sync_to_async(next, thread_sensitive=False)
    while (chunk := await read(iterator, _END)) is not _END:
        yield chunk


class WhiteNoiseMiddleware(BaseWhiteNoiseMiddleware):
    """WhiteNoise whose file bodies are asynchronous iterators under ASGI.

    WhiteNoise answers with a file response read synchronously. Under ASGI Django would
    then read the whole file into memory on a thread, and warn about it; here the file
    is streamed chunk by chunk instead. Under WSGI the response is left as it is.
    """

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = super().__call__(request)
        if isinstance(request, ASGIRequest) and isinstance(response, WhiteNoiseFileResponse) and not response.is_async:
            response.streaming_content = _read_in_thread(response.streaming_content)
        return response


class RefuseNulMiddleware:
    """A NUL byte (``%00``) anywhere in the path or the query string is a 400.

    No name, search or filter of the site can contain one, and PostgreSQL refuses any
    text that does (a 500 deep inside a query): refusing it here covers every page,
    API endpoint, query parameter and path parameter at once. The error is the styled
    400 page, or the API's error shape under /api/ (web/errors.py).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        # Answered here rather than raised, so that the answer is the same with DEBUG on
        # (Django would show its debug page for a raised BadRequest).

        if "\x00" in request.path:
            return bad_request(request, BadRequest(
                "The address contains a NUL character (%00), which no page or name can contain."))
        for key, values in request.GET.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                return bad_request(request, BadRequest(
                    f"The query parameter '{key.replace(chr(0), '')}' contains a NUL character (%00)."))
        return self.get_response(request)


class SiteNotFoundMiddleware:
    """With DEBUG on, a missing page is still the site's own 404 page (web/errors.py).

    Django answers every ``Http404`` with its technical page whenever DEBUG is on: the
    list of every URL pattern of the site, shown to anyone who mistypes an address on a
    ``make run``. Here the site's page answers instead, unless ``DEBUG_TECHNICAL_404``
    (``DJANGO_DEBUG_404=1``) asks for the technical one. With DEBUG off Django already
    calls ``handler404``, and this does nothing.

    An unmatched address fails in the resolver, before any view and outside
    ``process_exception``, and Django turns that into the technical page deeper in the
    stack than any middleware sees: so the path is resolved here first (with DEBUG on
    only). A view's ``Http404`` comes through ``process_exception``. Placed after
    ``CommonMiddleware``, whose ``APPEND_SLASH`` redirect still applies to this 404.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    @staticmethod
    def _replaces_debug_page() -> bool:
        return settings.DEBUG and not getattr(settings, "DEBUG_TECHNICAL_404", False)

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if self._replaces_debug_page():
            try:
                resolve(request.path_info, urlconf=getattr(request, "urlconf", None))
            except Resolver404 as exc:
                return not_found(request, exc)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponseBase | None:
        if isinstance(exception, Http404) and self._replaces_debug_page():
            return not_found(request, exception)
        return None
