"""The cheapest current model the provider offers: the default for work that reads a lot and
decides little (an explore subagent).

Read from data, never from a branch on ids: the models the provider lists today (`lookup.available`:
the Models API within a day, the built-in table on a partner platform or offline), each model's
lifecycle (`catalog.spec_for`: only active ones, a deprecated model is on its way out) and its
price (`cost.price_for`, which a config's `[prices]` overrides). A model without a known price is
not a candidate: cast cannot say it is cheap. Cheap to import; asks the network only when called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cast.agent.cost import price_for
from cast.models.catalog import spec_for
from cast.models.lookup import available
from cast.models.providers import Provider

Rank = tuple[float, float, int]


def rank(config: Any, model_id: str, order: int) -> Rank | None:
    """How cheap a model is for reading: input price first (an explore's bill is mostly prompt),
    then output, then the provider's own order; None for a model that is no candidate."""
    spec = spec_for(model_id)
    price = price_for(config, model_id)
    if spec.lifecycle != "active" or not price.known:
        return None
    return (price.input, price.output, order)


def cheapest(config: Any, offered: Callable[[], list[str]] | None = None) -> str:
    """The id of the cheapest current model on the configured provider, or the run's own model
    when none of the offered ones has a known price."""
    if offered is None:
        offered = _offered(config)
    ranked = [(found, model_id) for order, model_id in enumerate(offered()) if (found := rank(config, model_id, order))]
    return min(ranked)[1] if ranked else str(getattr(config, "model", ""))


def _offered(config: Any) -> Callable[[], list[str]]:
    def ids() -> list[str]:
        return available(Provider.from_config(config).lookup_client())

    return ids
