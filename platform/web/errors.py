"""The site's error responses: styled pages for people, the API's error shape under /api/.

Django calls these handlers (wired in config/urls.py) for an exception that no view
turned into a response: ``BadRequest``/``SuspiciousOperation`` (400), ``PermissionDenied``
(403), ``Http404`` (404) and anything unexpected (500). The rate limits of the HTML forms
answer with :func:`too_many_requests` (429). A path under ``/api/`` always gets
``{"error": {"code", "message", "fields"}}`` instead of a page.
"""

from __future__ import annotations

import logging
import math

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

from config.api import error_body

logger = logging.getLogger(__name__)

#: Shown when even the styled 500 page cannot be rendered (the database may be down).
PLAIN_500 = (
    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Server error</title>"
    "<link rel=\"stylesheet\" href=\"/static/css/site.css\"></head><body><main><section class=\"hero error-page\">"
    "<div class=\"container\"><p class=\"eyebrow\">500</p><h1>Something broke on our side.</h1>"
    "<p class=\"lead\">The error has been logged. Try again in a moment, or go "
    "<a href=\"/\">back to the home page</a>.</p></div></section></main></body></html>"
)


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _page(request: HttpRequest, template: str, status: int, context: dict | None = None) -> HttpResponse:
    return HttpResponse(render_to_string(template, context or {}, request=request), status=status)


def _reason(exception: BaseException | None, default: str) -> str:
    text = str(exception or "").strip()
    # Django's own resolver exceptions carry dicts ({"path": ..., "tried": ...}): not for people.
    return text if text and not text.startswith("{") else default


def bad_request(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
    """400: a request Django refused before any view (a NUL byte in the address, a bad host...)."""
    message = _reason(exception, "The request is malformed.")
    if is_api(request):
        return JsonResponse(error_body(code="bad_request", message=message), status=400)
    return _page(request, "400.html", 400, {"reason": message})


def permission_denied(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
    """403: the visitor may not do this (edit another player's deck...)."""
    message = _reason(exception, "You do not have permission to do this.")
    if is_api(request):
        return JsonResponse(error_body(code="permission_denied", message=message), status=403)
    return _page(request, "403.html", 403, {"reason": message.rstrip(".")})


def not_found(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
    """404: the site's page, or the API's error shape for a path under /api/."""
    if is_api(request):
        return JsonResponse(error_body(code="not_found", message=f"No API endpoint at {request.path}."), status=404)
    return _page(request, "404.html", 404)


def server_error(request: HttpRequest) -> HttpResponse:
    """500: the styled page (a plain copy of it if the page itself cannot be rendered)."""
    if is_api(request):
        body = error_body(code="server_error", message="Something broke on our side; the error has been logged.")
        return JsonResponse(body, status=500)
    try:
        return _page(request, "500.html", 500)
    except Exception:
        logger.exception("the 500 page could not be rendered; answering with its plain copy")
        return HttpResponse(PLAIN_500, status=500)


def too_many_requests(request: HttpRequest, *, wait: float | None) -> HttpResponse:
    """429 for the HTML forms: the styled page with ``Retry-After`` (seconds)."""
    seconds = max(1, math.ceil(wait)) if wait is not None else None
    response = _page(request, "429.html", 429, {"retry_after": seconds})
    if seconds is not None:
        response["Retry-After"] = str(seconds)
    return response
