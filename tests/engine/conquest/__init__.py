"""Tests of the Conquest engine: rules, rulings, Match the Twos, properties, golden replays."""
