"""Accounts: sign up, log in and out, profile pages, and API registration and tokens."""
