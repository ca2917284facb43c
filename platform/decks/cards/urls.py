"""Routes of the card pages (namespace ``cards``)."""

from django.urls import path

from decks.cards import views

app_name = "cards"

urlpatterns = [
    path("", views.card_index, name="index"),
    path("<slug:game>/text.json", views.card_texts, name="texts"),
    path("<slug:game>/<slug:card_id>/", views.card_detail, name="detail"),
    path("<slug:game>/<slug:card_id>/art.svg", views.card_art, name="art"),
]
