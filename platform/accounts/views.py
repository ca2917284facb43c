"""Account pages: sign up, log in, log out, and each player's profile."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, LogoutView
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from accounts.forms import LoginForm, SignupForm
from accounts.models import BotAccount
from accounts.selectors import bot_get, bot_of, bots_of, player_decks, player_get, recent_matches
from accounts.services import BOT_FLAGS, bot_create, bot_token_create, bot_token_revoke, token_for, user_register
from config.throttling import LoginThrottle, LoginUsernameThrottle, RegisterThrottle, throttle_wait
from decks.permissions import request_deck_visibility
from web.errors import too_many_requests
from web.games import game_choices


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


def _render_profile(request: HttpRequest, player, *, token: str | None = None, new_bot_token=None,
                    bot_form: dict | None = None, bot_errors: dict | None = None, status: int = 200) -> HttpResponse:
    is_self = request.user.is_authenticated and request.user.pk == player.pk
    bot_account = bot_of(user=player)
    return render(
        request,
        "accounts/profile.html",
        {
            "player": player,
            "decks": player_decks(user=player, visibility=request_deck_visibility(request)),
            "matches": recent_matches(player=player.get_username(), visibility=request_deck_visibility(request)),
            "is_self": is_self,
            "token": token,
            "bot_account": bot_account,
            "bots": bots_of(owner=player) if bot_account is None else [],
            "game_options": game_choices(),
            "new_bot_token": new_bot_token,
            "bot_form": bot_form or {"games": [], "accepts_people": True, "accepts_bots": True,
                                     "accepts_rated": True, "accepts_unrated": True},
            "bot_errors": bot_errors or {},
        },
        status=status,
    )


def _own_bot(request: HttpRequest, bot_id: int) -> BotAccount:
    try:
        bot = bot_get(bot_id=bot_id)
    except BotAccount.DoesNotExist:
        raise Http404(f"no bot {bot_id}") from None
    if bot.owner_id != request.user.pk:
        raise Http404(f"no bot {bot_id} of yours")
    return bot


@never_cache
@login_required
@require_http_methods(["POST"])
def bot_new(request: HttpRequest) -> HttpResponse:
    """POST ``/accounts/bots/``: create a bot from the profile's form; the form comes back
    with every problem named when it is refused."""
    form = {
        "name": request.POST.get("name", "")[:200],
        "games": request.POST.getlist("games")[:20],
        "description": request.POST.get("description", "")[:5000],
        **{flag: request.POST.get(flag) == "on" for flag in BOT_FLAGS},
    }
    try:
        bot = bot_create(owner=request.user, **form)
    except ValidationError as exc:
        return _render_profile(request, request.user, bot_form=form, bot_errors=exc.message_dict, status=400)
    except PermissionDenied as exc:
        raise Http404(str(exc)) from None
    messages.success(request, f"Bot {bot.name} is ready. Create a token for it to connect.")
    return redirect(reverse("accounts:profile", args=[request.user.get_username()]) + f"#bot-{bot.pk}")


@never_cache
@login_required
@require_http_methods(["POST"])
def bot_token_new(request: HttpRequest, bot_id: int) -> HttpResponse:
    """POST ``/accounts/bots/<id>/tokens/``: a new token, shown once in this response (never
    through a redirect, so that it sits in no cookie or session)."""
    bot = _own_bot(request, bot_id)
    try:
        row, secret = bot_token_create(bot=bot, owner=request.user, name=request.POST.get("name", "")[:200])
    except ValidationError as exc:
        return _render_profile(request, request.user, bot_errors={"token_bot": bot.pk, "token": exc.messages},
                               status=400)
    return _render_profile(request, request.user, new_bot_token={"bot": bot, "row": row, "secret": secret})


@login_required
@require_http_methods(["POST"])
def bot_token_delete(request: HttpRequest, bot_id: int, token_id: int) -> HttpResponse:
    """POST ``/accounts/bots/<id>/tokens/<token>/revoke/``: revoke the token at once."""
    bot = _own_bot(request, bot_id)
    token = bot.tokens.filter(pk=token_id).first()
    if token is None:
        raise Http404(f"no token {token_id} of this bot")
    bot_token_revoke(token=token, owner=request.user)
    messages.success(request, f"Token “{token.name}” of {bot.name} is revoked; programs using it are disconnected.")
    return redirect(reverse("accounts:profile", args=[request.user.get_username()]) + f"#bot-{bot.pk}")
