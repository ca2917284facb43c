"""Account pages: sign up, log in, log out, and each player's profile."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, LogoutView
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from accounts.forms import LoginForm, SignupForm
from accounts.selectors import player_decks, player_get, recent_matches
from accounts.services import token_for, user_register
from config.throttling import LoginThrottle, LoginUsernameThrottle, RegisterThrottle, throttle_wait
from decks.permissions import request_deck_visibility
from web.errors import too_many_requests


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        return target
    return None


@never_cache
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """``/accounts/signup/``: create an account and log in; then go to ``next`` or the new profile.

    Sign-ups are rate-limited per address (the styled 429 page past the limit).
    """
    if request.user.is_authenticated:
        return redirect("accounts:profile", username=request.user.get_username())
    if request.method == "POST":
        wait = throttle_wait(request, [RegisterThrottle()])
        if wait is not None:
            return too_many_requests(request, wait=wait)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = user_register(username=form.cleaned_data["username"], password=form.cleaned_data["password1"])
        except ValidationError as exc:
            for field, problems in exc.message_dict.items():
                for problem in problems:
                    form.add_error("password1" if field == "password" else field, problem)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.get_username()}! Your account is ready.")
            return redirect(_safe_next(request) or reverse("accounts:profile", args=[user.get_username()]))
    return render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request) or ""})


@method_decorator(never_cache, name="dispatch")
class SiteLoginView(LoginView):
    """``/accounts/login/``: Django's login view with the site's template.

    Attempts are rate-limited per address and per submitted username, like the token API
    (the styled 429 page past the limit).
    """

    template_name = "accounts/login.html"
    authentication_form = LoginForm
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        wait = throttle_wait(request, [LoginThrottle(), LoginUsernameThrottle()])
        if wait is not None:
            return too_many_requests(request, wait=wait)
        return super().post(request, *args, **kwargs)

    def get_default_redirect_url(self) -> str:
        return reverse("accounts:profile", args=[self.request.user.get_username()])


class SiteLogoutView(LogoutView):
    """``/accounts/logout/``: GET asks for confirmation, POST logs out and goes home."""

    http_method_names = ["get", "post", "options"]
    next_page = "home"

    def get(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        return render(request, "accounts/logout.html")


@login_required
@require_safe
def own_profile(request: HttpRequest) -> HttpResponse:
    """``/accounts/profile/`` (where Django sends a fresh login): the player's own page."""
    return redirect("accounts:profile", username=request.user.get_username())


@require_safe
def profile(request: HttpRequest, username: str) -> HttpResponse:
    """``/players/<username>/``: a player's decks and, when matches exist, their recent matches."""
    try:
        player = player_get(username=username)
    except get_user_model().DoesNotExist:
        raise Http404(f"no player '{username}'") from None
    return _render_profile(request, player)


@never_cache
@login_required
@require_http_methods(["POST"])
def api_token(request: HttpRequest) -> HttpResponse:
    """POST ``/accounts/token/``: the player's own profile, showing their API token.

    Rendered in the response rather than passed through a redirect, so that the token
    never sits in a cookie or the session.
    """
    return _render_profile(request, request.user, token=token_for(user=request.user))


def _render_profile(request: HttpRequest, player, *, token: str | None = None) -> HttpResponse:
    return render(
        request,
        "accounts/profile.html",
        {
            "player": player,
            "decks": player_decks(user=player, visibility=request_deck_visibility(request)),
            "matches": recent_matches(player=player.get_username(), visibility=request_deck_visibility(request)),
            "is_self": request.user.is_authenticated and request.user.pk == player.pk,
            "token": token,
        },
    )
