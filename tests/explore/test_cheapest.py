"""The default explore model: the cheapest current model the provider offers, read from the offered
list, the catalog's lifecycle and the price table, never from a branch on ids."""

from __future__ import annotations

from fakeapi import fake_api  # noqa: F401  (a fixture)

from cast.agent.cheapest import cheapest
from cast.config import Config
from cast.models import lookup


def test_the_cheapest_active_priced_model_of_those_offered():
    offered = ["claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5", "claude-haiku-4-5"]
    assert cheapest(Config(), lambda: offered) == "claude-haiku-5-5"


def test_prices_decide_so_a_configured_price_changes_the_choice():
    offered = ["claude-sonnet-5-5", "claude-haiku-5-5"]
    config = Config(prices={"claude-sonnet-5-5": (0.01, 0.02, 0.001, 0.01)})
    assert cheapest(config, lambda: offered) == "claude-sonnet-5-5"


def test_a_model_not_offered_is_never_chosen_and_unknown_or_retiring_ones_are_no_candidates():
    offered = ["claude-made-up-9", "claude-opus-4-5", "claude-opus-5-5"]  # unpriced; deprecated; the one left
    assert cheapest(Config(), lambda: offered) == "claude-opus-5-5"
    assert cheapest(Config(model="claude-sonnet-5-5"), lambda: ["claude-made-up-9"]) == "claude-sonnet-5-5"


def test_the_offered_list_comes_from_the_models_api(fake_api, monkeypatch):
    monkeypatch.setattr(lookup, "TIMEOUT", 120.0)  # a loaded machine must not make the lookup fall back to the table
    fake_api.serve_models()
    fake_api.models = {k: v for k, v in fake_api.models.items() if k in ("claude-opus-5-5", "claude-sonnet-5-5")}
    assert cheapest(Config()) == "claude-sonnet-5-5"  # no Haiku on this account
    assert any(path.startswith("/v1/models") for path in fake_api.model_requests)
