"""Training-test fixtures live in train_fixtures.py (importable by the test modules); this file exposes them."""

from train_fixtures import click_episodes, tiny_model, warm_click, warm_grounding, warm_longpress  # noqa: F401
