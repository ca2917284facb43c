"""WhiteNoise, adapted so that static files stream without blocking under ASGI."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponseBase
from whitenoise.middleware import WhiteNoiseFileResponse
from whitenoise.middleware import WhiteNoiseMiddleware as BaseWhiteNoiseMiddleware

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
