"""HTTP views of the site app: the home page and the health endpoint."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from web.health import heartbeat_status, service_report


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The landing page: what the two games are and what the site offers."""
    return render(request, "web/home.html", {"heartbeat": heartbeat_status()})


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> JsonResponse:
    """``{"status": "ok", "database": "ok", "broker": "ok", ...}``; 503 when a service is down."""
    report, healthy = await service_report()
    return JsonResponse(report, status=200 if healthy else 503)
