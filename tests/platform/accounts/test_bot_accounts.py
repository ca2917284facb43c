"""Bots and their tokens (docs/bots-api.md): a user creates bots, each an account of its
own that cannot log in to the site; a bot's token is shown once, stored as a digest, acts
as the bot alone (never as its owner) and is refused at once when revoked."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from accounts.models import BotAccount, BotToken
from accounts.services import BOTS_PER_OWNER, TOKENS_PER_BOT, bot_create, token_group

pytestmark = pytest.mark.django_db

BOTS = "/api/bots/"
ME = "/api/accounts/me/"


def error_of(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


@pytest.fixture
def owner() -> User:
    return User.objects.create_user("ada", password="long-enough-passphrase-42")


@pytest.fixture
def ada(owner) -> APIClient:
    client = APIClient()
    client.force_authenticate(owner)
    return client


def bearer(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def make_bot(ada: APIClient, name: str = "Sparky", **extra) -> dict:
    response = ada.post(BOTS, {"name": name, "games": ["tempofront"], **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def new_token(ada: APIClient, bot_id: int, name: str = "laptop") -> dict:
    response = ada.post(f"{BOTS}{bot_id}/tokens/", {"name": name}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_bot_is_an_account_of_its_own_that_cannot_log_in(ada, owner, client):
    bot = make_bot(ada, description="Plays fast", accepts_rated=False)
    assert bot["name"] == "Sparky" and bot["owner"] == "ada" and bot["games"] == ["tempofront"]
    assert bot["accepts_rated"] is False and bot["accepts_people"] is True and bot["description"] == "Plays fast"
    account = BotAccount.objects.get(pk=bot["id"])
    assert account.user.username == "Sparky" and account.owner == owner
    assert not account.user.has_usable_password()
    # No password opens it: neither the API's token endpoint nor the log-in form.
    refused = APIClient().post("/api/accounts/token/", {"username": "Sparky", "password": ""}, format="json")
    assert refused.status_code == 400
    page = client.post("/accounts/login/", {"username": "Sparky", "password": "anything-at-all"})
    assert page.status_code == 200 and "_auth_user_id" not in client.session
    assert [b["name"] for b in ada.get(BOTS).json()] == ["Sparky"]


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"name": "ADA", "games": ["tempofront"]}, "name", "taken"),
        ({"name": "", "games": ["tempofront"]}, "name", "choose a name"),
        ({"name": "x" * 41, "games": ["tempofront"]}, "name", "at most 40"),
        ({"name": "has space", "games": ["tempofront"]}, "name", "valid username"),
        ({"name": "Sparky", "games": []}, "games", "at least one game"),
        ({"name": "Sparky", "games": ["chess"]}, "games", "unknown game 'chess'"),
        ({"name": "Sparky"}, "games", "at least one game"),
        ({"name": "Sparky", "games": ["tempofront"], "description": "d" * 1001}, "description", "at most 1000"),
        ({"name": "Sparky", "games": ["tempofront"], "matchmaking": "yes please"}, "matchmaking", "valid boolean"),
    ],
)
def test_a_bad_bot_is_refused_naming_the_field_and_nothing_is_created(ada, body, field, words):
    error = error_of(ada.post(BOTS, body, format="json"), 400, "validation_error")
    assert words in " ".join(error["fields"][field]), error
    assert not BotAccount.objects.exists() and not User.objects.filter(username__iexact="sparky").exists()


def test_the_name_of_a_bot_is_taken_for_people_too(ada):
    make_bot(ada)
    response = APIClient().post("/api/accounts/register/", {"username": "sparky", "password": "long-enough-pass-42"},
                                format="json")
    error = error_of(response, 400, "validation_error")
    assert "taken" in error["fields"]["username"][0]


def test_one_owner_has_at_most_ten_bots(ada):
    for i in range(BOTS_PER_OWNER):
        make_bot(ada, f"bot{i}")
    error = error_of(ada.post(BOTS, {"name": "onemore", "games": ["conquest"]}, format="json"), 400,
                     "validation_error")
    assert f"{BOTS_PER_OWNER} bots" in error["fields"]["name"][0]
    assert BotAccount.objects.count() == BOTS_PER_OWNER and not User.objects.filter(username="onemore").exists()


def test_managing_bots_needs_a_signed_in_person(ada):
    error_of(APIClient().get(BOTS), 401, "not_authenticated")
    bot = make_bot(ada)
    secret = new_token(ada, bot["id"])["token"]
    # A bot's own token cannot manage bots: not its siblings, not itself, not new ones.
    as_bot = bearer(secret)
    error_of(as_bot.get(BOTS), 403, "permission_denied")
    error_of(as_bot.post(BOTS, {"name": "Child", "games": ["tempofront"]}, format="json"), 403, "permission_denied")
    error_of(as_bot.post(f"{BOTS}{bot['id']}/tokens/", {"name": "more"}, format="json"), 403, "permission_denied")
    assert BotToken.objects.count() == 1 and BotAccount.objects.count() == 1


def test_another_players_bot_is_not_found(ada):
    bot = make_bot(ada)
    other = APIClient()
    other.force_authenticate(User.objects.create_user("bea", password="long-enough-passphrase-42"))
    for response in (other.get(f"{BOTS}{bot['id']}/"),
                     other.patch(f"{BOTS}{bot['id']}/", {"description": "mine now"}, format="json"),
                     other.get(f"{BOTS}{bot['id']}/tokens/"),
                     other.post(f"{BOTS}{bot['id']}/tokens/", {"name": "stolen"}, format="json")):
        error_of(response, 404, "not_found")
    assert BotAccount.objects.get().description == "" and not BotToken.objects.exists()
    for bad in ("abc", "9" * 30, "²"):
        error_of(ada.get(f"{BOTS}{bad}/"), 404, "not_found")


def test_the_owner_changes_settings_but_not_the_name(ada):
    bot = make_bot(ada)
    changed = ada.patch(f"{BOTS}{bot['id']}/", {"games": ["conquest", "tempofront"], "accepts_bots": False},
                        format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["games"] == ["tempofront", "conquest"] and changed.json()["accepts_bots"] is False
    error = error_of(ada.patch(f"{BOTS}{bot['id']}/", {"name": "Renamed"}, format="json"), 400, "validation_error")
    assert "cannot change" in error["fields"]["name"][0]
    error_of(ada.patch(f"{BOTS}{bot['id']}/", {"games": ["nope"]}, format="json"), 400, "validation_error")
    account = BotAccount.objects.get()
    assert account.name == "Sparky" and account.games == ["tempofront", "conquest"] and not account.accepts_bots


def test_a_token_is_shown_once_stored_as_a_digest_and_acts_as_the_bot_alone(ada, owner):
    bot = make_bot(ada)
    created = new_token(ada, bot["id"], "laptop")
    secret = created["token"]
    assert secret.startswith("bot_") and len(secret) >= 40 and created["name"] == "laptop"
    row = BotToken.objects.get()
    assert secret not in {row.digest, row.prefix, row.name} and secret.startswith(row.prefix)
    listed = ada.get(f"{BOTS}{bot['id']}/tokens/").json()
    assert listed["count"] == 1 and "token" not in listed["results"][0]
    assert secret not in str(listed)
    assert listed["results"][0]["last_used"] is None
    me = bearer(secret).get(ME)
    assert me.status_code == 200 and me.json()["username"] == "Sparky"  # the bot, never "ada"
    row.refresh_from_db()
    assert row.last_used is not None
    assert ada.get(f"{BOTS}{bot['id']}/tokens/").json()["results"][0]["last_used"] is not None


def test_a_token_of_one_bot_never_acts_for_another(ada):
    first, second = make_bot(ada, "First"), make_bot(ada, "Second")
    secret = new_token(ada, first["id"])["token"]
    new_token(ada, second["id"])
    assert bearer(secret).get(ME).json()["username"] == "First"


def test_a_revoked_token_is_refused_at_once_and_its_connections_are_told(ada, effects_recorded,
                                                                          django_capture_on_commit_callbacks):
    bot = make_bot(ada)
    created = new_token(ada, bot["id"])
    assert bearer(created["token"]).get(ME).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        revoked = ada.delete(f"{BOTS}{bot['id']}/tokens/{created['id']}/")
    assert revoked.status_code == 200 and revoked.json()["revoked"]
    error_of(bearer(created["token"]).get(ME), 401, "authentication_failed")
    assert effects_recorded.for_group(token_group(created["id"])) == [{"type": "token.revoked",
                                                                      "token": created["id"]}]
    # Revoking again changes nothing and tells nobody twice.
    with django_capture_on_commit_callbacks(execute=True):
        assert ada.delete(f"{BOTS}{bot['id']}/tokens/{created['id']}/").status_code == 200
    assert len(effects_recorded.for_group(token_group(created["id"]))) == 1
    error_of(ada.delete(f"{BOTS}{bot['id']}/tokens/999999/"), 404, "not_found")


@pytest.mark.parametrize("header", ["Bearer bot_" + "A" * 5000, "Bearer bot_", "Bearer bot_\u00e9\u00e9",
                                    "bearer   bot_nope  "])
def test_an_unknown_bot_token_of_any_shape_is_a_401(header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    error_of(client.get(ME), 401, "authentication_failed")


def test_a_bot_has_at_most_ten_active_tokens_and_a_name_for_each(ada):
    bot = make_bot(ada)
    error = error_of(ada.post(f"{BOTS}{bot['id']}/tokens/", {"name": "  "}, format="json"), 400, "validation_error")
    assert error["fields"]["name"]
    first = new_token(ada, bot["id"], "t0")
    for i in range(1, TOKENS_PER_BOT):
        new_token(ada, bot["id"], f"t{i}")
    error = error_of(ada.post(f"{BOTS}{bot['id']}/tokens/", {"name": "more"}, format="json"), 400,
                     "validation_error")
    assert "revoke one first" in error["fields"]["name"][0]
    assert ada.delete(f"{BOTS}{bot['id']}/tokens/{first['id']}/").status_code == 200
    new_token(ada, bot["id"], "more")
    assert BotToken.objects.filter(revoked__isnull=True).count() == TOKENS_PER_BOT


def test_a_deactivated_bot_is_refused(ada):
    bot = make_bot(ada)
    secret = new_token(ada, bot["id"])["token"]
    User.objects.filter(username="Sparky").update(is_active=False)
    error_of(bearer(secret).get(ME), 401, "authentication_failed")


def test_a_bot_cannot_create_bots_through_the_service_either(ada):
    bot = make_bot(ada)
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        bot_create(owner=BotAccount.objects.get(pk=bot["id"]).user, name="Grandchild", games=["tempofront"])
    assert "owner" in refused.value.message_dict


# --------------------------------------------------------------------------- the pages


def test_the_profile_creates_a_bot_shows_its_token_once_and_revokes_it(client, owner):
    client.force_login(owner)
    refused = client.post("/accounts/bots/", {"name": "ada", "games": ["tempofront"]})
    assert refused.status_code == 400 and "taken" in refused.content.decode()
    assert not BotAccount.objects.exists()
    created = client.post("/accounts/bots/", {"name": "Sparky", "games": ["tempofront", "conquest"],
                                              "accepts_people": "on"}, follow=True)
    page = created.content.decode()
    assert created.status_code == 200 and "Bot Sparky is ready" in page and 'data-bot="Sparky"' in page
    bot = BotAccount.objects.get()
    assert bot.games == ["tempofront", "conquest"] and bot.accepts_people and not bot.accepts_bots
    shown = client.post(f"/accounts/bots/{bot.pk}/tokens/", {"name": "laptop"})
    secret = shown.context["new_bot_token"]["secret"]
    assert shown.status_code == 200 and secret in shown.content.decode() and shown["Cache-Control"].count("no-store")
    # Never again: the profile lists the token by name and prefix only.
    again = client.get("/players/ada/").content.decode()
    assert secret not in again and "laptop" in again and BotToken.objects.get().prefix in again
    assert bearer(secret).get(ME).json()["username"] == "Sparky"
    token = BotToken.objects.get()
    revoked = client.post(f"/accounts/bots/{bot.pk}/tokens/{token.pk}/revoke/", follow=True)
    assert revoked.status_code == 200 and "is revoked" in revoked.content.decode()
    error_of(bearer(secret).get(ME), 401, "authentication_failed")


def test_a_bots_profile_says_bot_and_who_runs_it(client, ada):
    make_bot(ada, description="Plays fast")
    page = client.get("/players/Sparky/").content.decode()
    assert "BOT" in page and 'href="/players/ada/"' in page and "Plays fast" in page
    assert "Your bots" not in page and "API access" not in page
    # The owner's public page lists the bot for everyone; its tokens only for the owner.
    public = client.get("/players/ada/").content.decode()
    assert 'href="/players/Sparky/"' in public and "Create token" not in public


def test_another_players_bot_cannot_be_given_a_token_or_revoked_from_the_site(client, ada):
    bot = make_bot(ada)
    secret = new_token(ada, bot["id"])["token"]
    token = BotToken.objects.get()
    client.force_login(User.objects.create_user("bea", password="long-enough-passphrase-42"))
    assert client.post(f"/accounts/bots/{bot['id']}/tokens/", {"name": "mine"}).status_code == 404
    assert client.post(f"/accounts/bots/{bot['id']}/tokens/{token.pk}/revoke/").status_code == 404
    assert BotToken.objects.count() == 1 and bearer(secret).get(ME).status_code == 200


def test_a_bots_name_is_marked_as_a_bot_wherever_the_filter_shows_it(ada):
    from django.template import Context, Template

    make_bot(ada)
    page = Template("{% load players %}{{ a|player }} / {{ b|player }} / {{ c|player }}").render(
        Context({"a": "Sparky", "b": "ada", "c": User.objects.get(username="Sparky")}))
    assert page.count(">BOT</span>") == 2 and page.split(" / ")[1] == "ada"
    # Escaped like any name.
    assert Template("{% load players %}{{ a|player }}").render(Context({"a": "<b>x</b>"})) == "&lt;b&gt;x&lt;/b&gt;"
