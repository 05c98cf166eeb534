"""One streamed reply as it arrives: text and thinking go to the front-end as they come; tool
calls and the stop are kept for the end of the reply, when the loop decides what follows. Apart
from the loop because none of it is a guard: it sorts what the model sends, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from cast.agent import events as ev
from cast.models import base as m


@dataclass
class Reply:
    """What one streamed reply has produced so far."""

    text: list[str] = field(default_factory=list)
    calls: list[m.ToolUse] = field(default_factory=list)
    stop: m.Stop | None = None


def take(reply: Reply, item: m.ModelEvent, account: Callable[[m.Usage], ev.UsageUpdate]) -> Iterator[ev.Event]:
    """One streamed item into `reply`, and what the front-end sees of it now; `account` books a
    usage report and says the run's totals."""
    if isinstance(item, m.TextDelta):
        reply.text.append(item.text)
        yield item
    elif isinstance(item, m.ThinkingDelta):
        yield item
    elif isinstance(item, m.ToolUse):
        reply.calls.append(item)
    elif isinstance(item, m.Usage):
        yield account(item)
    elif isinstance(item, m.Stop):
        reply.stop = item
    elif isinstance(item, m.Retrying):
        if item.partial:
            reply.text.clear()  # the failed attempt's words are not part of the reply
        yield ev.Notice(f"model call failed ({item.reason}); retrying in {item.delay:.1f}s, attempt {item.attempt}", "warning")
