"""Shipped checkpoints say where they came from without the paths of the machine that built them: the cards and
the checkpoints' metadata carry no absolute path, and the cards name the files they describe by SHA-256."""

import hashlib
import io
import json

import pytest
import torch
from provenance_helpers import absolute_paths

from venuskit.models.judge.model import WEIGHTS, load_card, model_card
from venuskit.models.nano import default_checkpoint, load_default


def test_the_check_finds_absolute_paths():
    assert absolute_paths({"teachers": {"world": "/tmp/nano4/grpo-world/venus-nano.pt"}}) == [
        "/tmp/nano4/grpo-world/venus-nano.pt"]  # fmt: skip
    assert absolute_paths(["built in `/work/wt/x/runs`", "at /home/u/a.pt", "(/root/x)", "C:\\runs\\a.pt"]) == [
        "/work/wt/x/runs", "/home/u/a.pt", "/root/x", "C:\\runs\\a.pt"]  # fmt: skip
    assert absolute_paths("type / target / text heads, 64/2, http://127.0.0.1:8000/v1, runs/nano, OUT/a.pt") == []


@pytest.mark.parametrize("card", [default_checkpoint().with_name("MODEL_CARD.md"), WEIGHTS.with_name("MODEL_CARD.md"),
                                  WEIGHTS.with_suffix(".json")])  # fmt: skip
def test_shipped_cards_carry_no_absolute_path(card):
    text = card.read_text("utf-8")
    assert absolute_paths(json.loads(text) if card.suffix == ".json" else text) == []


def test_the_shipped_nano_checkpoint_names_its_teachers_and_itself_without_paths():
    path = default_checkpoint()
    payload = torch.load(io.BytesIO(path.read_bytes()), map_location="cpu", weights_only=True)
    assert absolute_paths(payload["meta"]) == [] and absolute_paths(payload["config"]) == []
    meta = payload["meta"]
    # What made it, from which seed; an ensemble says so of each member, named by run folder and file, by digest.
    for made in meta["members"] if meta["stage"] == "ensemble" else [meta]:
        assert made["stage"] in ("sft", "grpo", "mopd") and isinstance(made["seed"], int)
    for member in meta.get("members", []):
        assert member["name"].count("/") == 1 and member["name"].endswith(".pt") and len(member["sha256"]) == 64
    for teacher in meta.get("teachers", {}).values():  # a distilled checkpoint names its teachers by run folder
        assert teacher["name"].count("/") == 1 and teacher["name"].endswith(".pt")
    described = load_default().describe()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert described["checkpoint"] == {"name": "venus-nano.pt", "sha256": digest,
                                       "weights_sha256": payload["sha256"]}  # fmt: skip
    card = path.with_name("MODEL_CARD.md").read_text("utf-8")
    assert digest in card and payload["sha256"] in card  # the card describes this very file


def test_the_judge_card_states_its_set_whole_and_names_its_weights():
    card = load_card()
    text = model_card(card)
    assert text == WEIGHTS.with_name("MODEL_CARD.md").read_text("utf-8")  # the shipped card is the written one
    data = next(line for line in text.splitlines() if line.startswith("- Data:"))
    assert data.count("`") % 2 == 0 and data.endswith(".")  # no quote cut open mid-string
    assert f"{len(card.training['set_request']['tasks'])} (task, seed, surface) picks" in data
    assert hashlib.sha256(WEIGHTS.read_bytes()).hexdigest() in text
