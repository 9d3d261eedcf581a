"""Secrets: `{{secret:name}}` placeholders in the task, resolved only when typed, only on the secret's origins.

The model only ever sees and writes the placeholder (`Type(content='{{secret:bank_password}}')`). `SecretsEnv`
wraps the env: it resolves the placeholder at execution time, after checking that the focused field is on a
page of one of the secret's origins (and not inside a frame); it then scrubs the value from everything the env
returns (executed ops, info, URLs, titles, error messages) and paints over every field or text run that shows
it in the screenshot. Records, exports, the viewer and the model's prompts are built from what the wrapper
returns, so none of them holds the value. A secrets file:

    [bank_password]
    value_env = "BANK_PASSWORD"            # read from the environment (or `value = "..."`)
    origins = ["http://127.0.0.1:8080"]    # scheme://host:port, globs allowed

What this does not cover: a page that shows the secret inside a canvas or an image (the mask finds text and
fields), and screenshots taken by something other than this env.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import io
import os
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from venuskit.actions.types import Action, Sequence, Type
from venuskit.agent.safety.rules import origin_of
from venuskit.envs.base import ActionRefused, EnvError, Observation, StepResult
from venuskit.infra import untrusted

PLACEHOLDER = re.compile(r"\{\{\s*secret:([A-Za-z0-9_.-]+)\s*\}\}")
MIN_LENGTH = 4  # shorter values would be scrubbed out of ordinary text everywhere


class SecretsFileError(ValueError):
    """A secrets file that cannot be used; the message names the file, the secret and the field."""


class SecretRefused(ActionRefused):
    """A placeholder that may not be resolved here (unknown name, wrong origin, a frame)."""

    kind = "SecretRefused"


@dataclass(frozen=True)
class Secret:
    name: str
    value: str = dataclasses.field(repr=False)
    origins: tuple[str, ...]

    def allowed_on(self, url: str) -> bool:
        origin = origin_of(url)
        return any(fnmatch.fnmatchcase(origin, pattern.lower()) for pattern in self.origins)

    def placeholder(self) -> str:
        return "{{secret:" + self.name + "}}"


class Vault:
    """The secrets of one run, by name."""

    def __init__(self, secrets: Iterable[Secret] = ()) -> None:
        self.secrets = {s.name: s for s in secrets}
        for s in self.secrets.values():
            if len(s.value) < MIN_LENGTH:
                raise ValueError(f"Secret {s.name!r} is shorter than {MIN_LENGTH} characters; it could not be told "
                                 "apart from ordinary text when it is scrubbed from records.")  # fmt: skip
            if not s.origins:
                raise ValueError(f"Secret {s.name!r} has no origins; name the sites it may be typed on.")
        # Longest first, so a secret that contains another is replaced whole.
        self._forms = sorted(((form, s) for s in self.secrets.values() for form in _encodings(s.value)),
                             key=lambda fs: -len(fs[0]))  # fmt: skip

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def values(self) -> list[str]:
        return list(dict.fromkeys(form for form, _ in self._forms))

    def resolve(self, text: str, url: str) -> str:
        """`text` with every placeholder replaced by its value; SecretRefused unless `url` is in scope."""

        def sub(m: re.Match[str]) -> str:
            secret = self.secrets.get(m.group(1))
            if secret is None:
                known = ", ".join(sorted(self.secrets)) or "none"
                raise SecretRefused(f"There is no secret named {m.group(1)!r} (known: {known}).")
            if not secret.allowed_on(url):
                raise SecretRefused(f"The secret {secret.name!r} may be typed only on {list(secret.origins)}, not on "
                                    f"{origin_of(url)}; it was not typed.")  # fmt: skip
            return secret.value

        return PLACEHOLDER.sub(sub, text)

    def scrub(self, obj: Any) -> Any:
        """`obj` with every secret value (and its URL encodings) replaced by its placeholder, recursively through
        strings, dicts, lists, tuples and dataclasses."""
        if not self._forms:
            return obj
        if isinstance(obj, str):
            for form, secret in self._forms:
                if form in obj:
                    obj = obj.replace(form, secret.placeholder())
            return obj
        if isinstance(obj, dict):
            return {self.scrub(k): self.scrub(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.scrub(v) for v in obj)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            changes = {f.name: self.scrub(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init}
            return dataclasses.replace(obj, **changes)
        return obj

    def leaks(self, text: str) -> list[str]:
        """Names of the secrets whose value (or an encoding of it) occurs in `text`."""
        return sorted({s.name for form, s in self._forms if form in text})


def _encodings(value: str) -> list[str]:
    return list(dict.fromkeys([value, quote(value, safe=""), quote_plus(value)]))


def load_secrets(path: Path | str) -> Vault:
    """Read a secrets file (one table per secret: value or value_env, and origins)."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise SecretsFileError(f"{path}: cannot be read ({e.strerror or e}).") from e
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SecretsFileError(f"{path}: not valid TOML: {e}") from e
    secrets = []
    for name, raw in doc.items():
        where = f"{path}: secret {name!r}"
        if not isinstance(raw, dict) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise SecretsFileError(f"{where}: must be a table [{name}] with value or value_env, and origins.")
        if ("value" in raw) == ("value_env" in raw):
            raise SecretsFileError(f"{where}: give exactly one of value and value_env.")
        value = raw.get("value") if "value" in raw else os.environ.get(str(raw["value_env"]))
        if not isinstance(value, str) or not value:
            raise SecretsFileError(f"{where}: the value is empty (is ${raw.get('value_env')} set?).")
        origins = raw.get("origins")
        if not isinstance(origins, list) or not origins or not all(isinstance(o, str) for o in origins):
            raise SecretsFileError(f"{where}.origins: must list the origins it may be typed on, like "
                                   "['https://bank.example'].")  # fmt: skip
        secrets.append(Secret(name, value, tuple(origins)))
    try:
        return Vault(secrets)
    except ValueError as e:
        raise SecretsFileError(f"{path}: {e}") from e


class SecretsEnv:
    """Wraps an env (the browser's): resolves placeholders at execution, scrubs and masks what comes back.
    Everything else (page, describe_point, ...) is the wrapped env's."""

    def __init__(self, env: Any, vault: Vault) -> None:
        self.env, self.vault = env, vault
        self.surface = env.surface
        self.typed: set[str] = set()  # names of the secrets typed in this episode
        self._last: Observation | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def reset(self, task: dict[str, Any]) -> Observation:
        self.typed.clear()
        return self._clean(self.env.reset(task))

    def observe(self) -> Observation:
        return self._clean(self.env.observe())

    def close(self) -> None:
        self.env.close()

    def step(self, action: Action) -> StepResult:
        try:
            live = self._resolve(action)
        except SecretRefused as e:
            obs = self._last if self._last is not None else self.observe()
            return StepResult(observation=obs, info={"secret_refused": str(e)}, error=e)
        result = self.env.step(live)
        obs = self._clean(result.observation)
        info = self.vault.scrub(result.info)
        if obs.info.get("masked_boxes"):  # recorded with the step: the screenshot after it was painted over
            info["masked_boxes"] = obs.info["masked_boxes"]
        return StepResult(observation=obs, executed=self.vault.scrub(result.executed), info=info,
                          reward=result.reward, terminated=result.terminated,
                          error=self._scrub_error(result.error))  # fmt: skip

    # -- resolving --

    def _resolve(self, action: Action) -> Action:
        if isinstance(action, Sequence):
            return dataclasses.replace(action, actions=tuple(self._resolve(a) for a in action.actions))
        if not isinstance(action, Type) or not PLACEHOLDER.search(action.content):
            return action
        target = self.env.describe_focus() if hasattr(self.env, "describe_focus") else None
        if target is None:
            raise SecretRefused("A secret is typed only into a focused field on its own site; nothing is focused.")
        if target.frame:
            raise SecretRefused("A secret is never typed into an embedded frame (its site cannot be checked).")
        value = self.vault.resolve(action.content, target.url)
        self.typed.update(PLACEHOLDER.findall(action.content))
        return dataclasses.replace(action, content=value)

    # -- cleaning what comes back --

    def _clean(self, obs: Observation) -> Observation:
        png, masked = self._mask(obs)
        info = self.vault.scrub(obs.info)
        if masked:
            info = {**info, "masked_boxes": masked}
        clean = dataclasses.replace(obs, png=png, url=self.vault.scrub(obs.url), title=self.vault.scrub(obs.title),
                                    info=info)  # fmt: skip
        self._last = clean
        return clean

    def _mask(self, obs: Observation) -> tuple[bytes, int]:
        """Paint over every box that shows a secret; if the page cannot be asked after a secret was typed, the
        whole screenshot is painted over (the model then sees nothing rather than the secret)."""
        if not self.vault or not hasattr(self.env, "value_boxes"):
            return obs.png, 0
        try:
            boxes = self.env.value_boxes(self.vault.values(), (obs.width, obs.height))
        except EnvError:
            if not self.typed:
                return obs.png, 0
            boxes = [(0, 0, obs.width, obs.height)]
        return (paint_boxes(obs.png, boxes), len(boxes)) if boxes else (obs.png, 0)

    def _scrub_error(self, error: EnvError | None) -> EnvError | None:
        if error is None or not self.vault.leaks(str(error)):
            return error
        clean = type(error).__new__(type(error))
        EnvError.__init__(clean, self.vault.scrub(str(error)))
        return clean


def paint_boxes(png: bytes, boxes: Iterable[tuple[int, int, int, int]]) -> bytes:
    """The PNG with each (x1, y1, x2, y2) box filled with solid grey."""
    from PIL import ImageDraw

    image = untrusted.open_image(png).convert("RGB")
    draw = ImageDraw.Draw(image)
    for x1, y1, x2, y2 in boxes:
        draw.rectangle((x1, y1, max(x1, x2 - 1), max(y1, y2 - 1)), fill=(96, 96, 96))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
