"""Routes of the account pages (namespace ``accounts``): ``/accounts/...`` and ``/players/<name>/``."""

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", views.SiteLoginView.as_view(), name="login"),
    path("accounts/logout/", views.SiteLogoutView.as_view(), name="logout"),
    path("accounts/profile/", views.own_profile, name="own-profile"),
    path("accounts/token/", views.api_token, name="api-token"),
    path("accounts/bots/", views.bot_new, name="bot-new"),
    path("accounts/bots/<int:bot_id>/tokens/", views.bot_token_new, name="bot-token-new"),
    path("accounts/bots/<int:bot_id>/tokens/<int:token_id>/revoke/", views.bot_token_delete, name="bot-token-revoke"),
    path("players/<str:username>/", views.profile, name="profile"),
]
