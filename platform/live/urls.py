"""URL routes of the live app: pages under /live/ (namespace ``live``), the API under
/api/live/ (namespace ``live-api``)."""

from django.urls import include, path

from live import api, views

page_patterns = [
    path("", views.index, name="index"),
    path("<int:match_id>/", views.match, name="match"),
    path("bots/<int:bot_id>/", views.bot_log, name="bot-log"),
]

api_patterns = [
    path("now/", api.LiveNow.as_view(), name="now"),
    path("queue/", api.Queue.as_view(), name="queue"),
    path("bot/", api.PlayBot.as_view(), name="bot"),
    path("challenges/", api.Challenges.as_view(), name="challenges"),
    path("challenges/waiting/", api.ChallengesWaiting.as_view(), name="challenges-waiting"),
    path("challenges/<int:challenge_id>/", api.ChallengeAnswer.as_view(), name="challenge"),
    path("bots/<int:bot_id>/games/", api.BotGames.as_view(), name="bot-games"),
    path("bots/<int:bot_id>/record/", api.BotRecord.as_view(), name="bot-record"),
]

urlpatterns = [
    path("live/", include((page_patterns, "live"))),
    path("api/live/", include((api_patterns, "live-api"))),
]
